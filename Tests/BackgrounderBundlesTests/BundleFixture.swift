import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Builds bundle directories on disk. Every mode is set explicitly, since the umask differs
/// between machines and the validator cares about group and other write bits.
struct BundleFixture: Sendable {
    /// The directory bundles are made in (the one a scan lists).
    let directory: String

    /// The executable every fixture bundle ships.
    static let script = Data("#!/bin/sh\nexit 0\n".utf8)
    /// The name `CFBundleExecutable` gives it.
    static let executableName = "Tool"

    /// A path inside ``directory``.
    func path(_ name: String) -> String {
        directory + "/" + name
    }

    /// Makes `name` (for example `Good.bundle`) holding `Info.plist` and the script, each
    /// left out when `nil`.
    @discardableResult
    func makeBundle(_ name: String, plist: Data?, executable: String? = executableName) throws -> String {
        let bundle = path(name)
        try makeDirectory(bundle)
        if let plist {
            try write(plist, to: bundle + "/Info.plist", mode: 0o644)
        }
        if let executable {
            try write(Self.script, to: bundle + "/" + executable, mode: 0o755)
        }
        return bundle
    }

    /// Makes `name` with a manifest that passes every check.
    @discardableResult
    func makeGoodBundle(_ name: String, identifier: String) throws -> String {
        try makeBundle(name, plist: InfoPlistText.valid(identifier: identifier).data)
    }

    func makeDirectory(_ path: String, mode: mode_t = 0o755) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try setMode(mode, of: path)
    }

    func write(_ data: Data, to path: String, mode: mode_t) throws {
        try data.write(to: URL(fileURLWithPath: path))
        try setMode(mode, of: path)
    }

    func setMode(_ mode: mode_t, of path: String) throws {
        guard chmod(path, mode) == 0 else { throw FixtureError(call: "chmod \(path)") }
    }

    func makeSymbolicLink(_ path: String, to destination: String) throws {
        guard symlink(destination, path) == 0 else { throw FixtureError(call: "symlink \(path)") }
    }

    /// The permission bits of `path`, not following a final link.
    func mode(of path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The names in `path`, sorted.
    func listing(_ path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var call: String
    var errorNumber = errno
    var description: String { "\(call): \(String(cString: strerror(errorNumber)))" }
}
