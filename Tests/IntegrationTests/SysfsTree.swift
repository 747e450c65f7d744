import BackgrounderTestSupport
import Foundation

/// Files in the shape of sysfs and procfs (`AC/type` holding `Mains`...) under a scratch
/// directory, for the condition readers.
struct SysfsTree {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "sysfs")
    }

    /// A path inside the tree.
    func path(_ relative: String) -> String { directory.appending(relative) }

    /// Writes `text` and a newline (as the kernel does) to `relative`, making directories.
    func write(_ relative: String, _ text: String) throws {
        let file = path(relative)
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try (text + "\n").write(toFile: file, atomically: true, encoding: .utf8)
    }

    /// A directory where a file should be: reading it fails even for root (EISDIR).
    func makeUnreadable(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: path(relative), withIntermediateDirectories: true)
    }

    /// A power supply: `type`, and `online` or `status` when given.
    func supply(_ name: String, type: String, online: Bool? = nil, status: String? = nil) throws {
        try write("\(name)/type", type)
        if let online { try write("\(name)/online", online ? "1" : "0") }
        if let status { try write("\(name)/status", status) }
    }

    /// A network interface's `operstate` and `flags`.
    func interface(_ name: String, operstate: String, flags: String) throws {
        try write("net/\(name)/operstate", operstate)
        try write("net/\(name)/flags", flags)
    }

    func remove() { directory.remove() }
}
