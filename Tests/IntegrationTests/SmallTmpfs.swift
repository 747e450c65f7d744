import BackgrounderTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tmpfs of a few MiB mounted on a directory, to fill up on purpose: the disk-full tests'
/// state directory. Needs root (CI and this machine run tests as root).
struct SmallTmpfs {
    let path: String

    /// Whether a tmpfs can be mounted here at all (root, and mount(2) allowed), tried once.
    static let canMount: Bool = {
        guard geteuid() == 0, let probe = try? TemporaryDirectory(prefix: "tmpfs-probe") else { return false }
        defer { probe.remove() }
        guard mount("tmpfs", probe.path, "tmpfs", 0, "size=64k,mode=0700") == 0 else { return false }
        umount2(probe.path, 0)
        return true
    }()

    /// Mounts a tmpfs of `size` (`2m`) on `path`, creating the directory, with mode 0700 as
    /// the daemon wants its state directory.
    init(at path: String, size: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(size),mode=0711") == 0 else {
            throw HarnessError("mount -t tmpfs -o size=\(size) on \(path): \(String(cString: strerror(errno)))")
        }
        self.path = path
    }

    /// A directory on a tmpfs mounted elsewhere, to fill from there.
    init(mounted path: String) {
        self.path = path
    }

    /// Bind-mounts `source` onto `path/name`, so what goes there (app output) is not on
    /// this small filesystem.
    func bind(_ source: String, at name: String) throws {
        let target = path + "/" + name
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        guard mount(source, target, nil, UInt(MS_BIND), nil) == 0 else {
            throw HarnessError("bind mount \(source) on \(target): \(String(cString: strerror(errno)))")
        }
    }

    /// Fills the filesystem with one file until the kernel says ENOSPC.
    /// - Returns: The file's size.
    @discardableResult
    func fill() throws -> Int {
        let file = path + "/filler"
        // Close-on-exec: tests run in parallel in one process, and a child another test spawns
        // meanwhile would keep the filler open, so removing it would free nothing.
        let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw HarnessError("cannot create \(file): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x55, count: 4096)
        var total = 0
        while true {
            let written = write(descriptor, chunk, chunk.count)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { break }
            total += written
        }
        guard errno == ENOSPC else {
            throw HarnessError("filling \(file) stopped: \(String(cString: strerror(errno)))")
        }
        return total
    }

    /// Frees what ``fill()`` took.
    func free() throws {
        try FileManager.default.removeItem(atPath: path + "/filler")
    }

    /// Unmounts the binds under it and then it (lazily if something still has a file open).
    func unmount(binds: [String] = []) {
        for name in binds { umount2(path + "/" + name, Int32(MNT_DETACH)) }
        if umount2(path, 0) != 0 { umount2(path, Int32(MNT_DETACH)) }
    }
}
