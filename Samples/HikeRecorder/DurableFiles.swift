#if canImport(Glibc)
    import Glibc
#endif

/// Reading whole files and replacing them so a reader sees the old or the new one, never
/// half of each, even across a crash.
enum DurableFiles {
    /// Reads a whole file.
    /// - Parameter path: The file.
    /// - Returns: Its bytes, or `nil` when it does not exist.
    /// - Throws: ``FileError`` for any other failure.
    static func read(_ path: String) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor == -1 {
            if errno == ENOENT { return nil }
            throw FileError(code: .open, path: path, systemError: errno)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer throws in
                try FileError.check(.read, path) { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Replaces a file's contents atomically: writes a temporary file beside it, syncs it,
    /// renames it over the file and syncs the directory.
    /// - Parameters:
    ///   - path: The file.
    ///   - bytes: Its new contents.
    ///   - mode: Permissions for the new file.
    /// - Throws: ``FileError`` when any step fails (the old file is then untouched).
    static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws {
        let temporary = path + ".tmp-\(getpid())"
        // Errors name the file the caller asked for: the temporary one is an internal detail.
        let descriptor = try FileError.check(.create, path) {
            open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        }
        do {
            defer { close(descriptor) }
            var written = 0
            while written < bytes.count {
                written += try bytes.withUnsafeBytes { buffer throws in
                    try FileError.check(.write, path) {
                        write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                    }
                }
            }
            try FileError.check(.sync, path) { fsync(descriptor) }
            try FileError.check(.rename, path) { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        try? syncDirectory(of: path)
    }

    /// Syncs the directory holding `path`, so a file created or renamed there keeps its name
    /// after a crash.
    /// - Parameter path: A file in the directory.
    /// - Throws: ``FileError`` when the directory cannot be opened or synced.
    static func syncDirectory(of path: String) throws {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = try FileError.check(.open, directory) {
            open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        defer { close(descriptor) }
        try FileError.check(.sync, directory) { fsync(descriptor) }
    }

    /// Creates a directory and its parents (mode 0700) when they do not exist.
    /// - Parameter path: The directory.
    /// - Throws: ``FileError`` when one cannot be created.
    static func makeDirectory(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) == -1 && errno != EEXIST {
                throw FileError(code: .create, path: prefix, systemError: errno)
            }
        }
    }
}
