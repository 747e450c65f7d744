import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension FileImport {
    /// Opens a source path for reading, resolving it one component at a time and following a
    /// symbolic link only when root or the daemon's uid owns it and it lies in no app's
    /// directory: a link the person made (a `~/Music` that points at another disk) is
    /// followed, one an app planted in a directory of its own that the person names (another
    /// app's downloads) is not, so an app cannot make the daemon read a file for it that its
    /// sandbox keeps from it. The uid alone cannot tell under a person's daemon, where apps
    /// have the person's; where the link lies can.
    /// - Parameters:
    ///   - path: The absolute path the person gave.
    ///   - appDirectories: The directories holding the apps' own (`STATE/data`, `STATE/tmp`).
    /// - Returns: A descriptor opened `O_RDONLY | O_NONBLOCK`.
    /// - Throws: ``DaemonError`` naming the path and why it cannot be read.
    package static func openSource(_ path: String, appDirectories: Set<FileIdentity>) throws(DaemonError) -> Int32 {
        func failure(_ reason: String) -> DaemonError { DaemonError(.configuration, path: path, reason) }
        var current = open("/", Self.pathOnly | O_DIRECTORY | O_CLOEXEC)
        guard current >= 0 else { throw failure("cannot open /: \(String(cString: strerror(errno)))") }
        defer { close(current) }
        var pending = path.split(separator: "/").map(String.init)
        var links = 0
        while !pending.isEmpty {
            let name = pending.removeFirst()
            if name == "." { continue }
            let next = openat(current, name, Self.pathOnly | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { throw failure("cannot open: \(String(cString: strerror(errno)))") }
            var info = stat()
            guard fstat(next, &info) == 0 else {
                close(next)
                throw failure("cannot stat: \(String(cString: strerror(errno)))")
            }
            guard info.st_mode & S_IFMT == S_IFLNK else {
                close(current)
                current = next
                continue
            }
            close(next)
            guard info.st_uid == 0 || info.st_uid == geteuid() else {
                throw failure(
                    "\(name) is a symbolic link of uid \(info.st_uid), neither root's nor the daemon's; not followed")
            }
            guard !lies(current, under: appDirectories) else {
                throw failure(
                    "\(name) is a symbolic link in an app's directory, which the app may have made; not followed")
            }
            links += 1
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlinkat(current, name, &target, target.count - 1)
            guard length >= 0, links <= 40 else {
                throw failure("cannot follow \(name): \(String(cString: strerror(length < 0 ? errno : ELOOP)))")
            }
            let text = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("/") {
                let root = open("/", Self.pathOnly | O_DIRECTORY | O_CLOEXEC)
                guard root >= 0 else { throw failure("cannot open /: \(String(cString: strerror(errno)))") }
                close(current)
                current = root
            }
            pending = text.split(separator: "/").map(String.init) + pending
        }
        // The O_PATH descriptor names the file; reopened through /proc to read it.
        let readable = open("/proc/self/fd/\(current)", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard readable >= 0 else { throw failure("cannot open: \(String(cString: strerror(errno)))") }
        return readable
    }

    /// Whether the directory open as `directory` is one of `roots` or lies below one, found by
    /// climbing `..` to `/` (by identity, so no path spelling hides it). A step that cannot
    /// be taken counts as inside: the caller refuses.
    package static func lies(_ directory: Int32, under roots: Set<FileIdentity>) -> Bool {
        var current = openat(directory, ".", pathOnly | O_DIRECTORY | O_CLOEXEC)
        defer { if current >= 0 { close(current) } }
        for _ in 0..<4096 {
            guard current >= 0, let identity = FileIdentity(current) else { return true }
            if roots.contains(identity) { return true }
            let parent = openat(current, "..", pathOnly | O_DIRECTORY | O_CLOEXEC)
            close(current)
            current = parent
            // At `/`, `..` is `/` itself.
            if parent >= 0, FileIdentity(parent) == identity { return false }
        }
        return true
    }
}
