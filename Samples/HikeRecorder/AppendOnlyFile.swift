#if canImport(Glibc)
    import Glibc
#endif

/// A file opened for appending, whose appends are on disk when ``append(_:)`` returns.
///
/// One write(2) per batch and one fsync(2): if the process is killed mid-write, at most the
/// end of the last line is missing, which the reader recognises (no newline) and drops.
final class AppendOnlyFile {
    /// The file's path.
    let path: String
    private let descriptor: Int32

    /// Opens the file for appending, creating it (mode 0600) when it does not exist.
    /// - Parameter path: The file.
    /// - Throws: ``FileError`` when it cannot be opened.
    init(path: String) throws {
        self.path = path
        let existed = access(path, F_OK) == 0
        descriptor = try FileError.check(.open, path) {
            open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        }
        if !existed {
            // A new file's name lives in its directory: without this, a crash soon after
            // could leave fsynced lines in a file that has no name.
            try? DurableFiles.syncDirectory(of: path)
        }
    }

    deinit {
        close(descriptor)
    }

    /// Appends bytes and waits until they are on disk.
    /// - Parameter bytes: What to append.
    /// - Throws: ``FileError`` when writing or syncing fails.
    func append(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            written += try bytes.withUnsafeBytes { buffer throws in
                try FileError.check(.write, path) {
                    write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                }
            }
        }
        try FileError.check(.sync, path) { fsync(descriptor) }
    }

    /// Cuts the file to `length` bytes and waits until that is on disk.
    /// - Parameter length: The new length.
    /// - Throws: ``FileError`` when truncating or syncing fails.
    func truncate(to length: Int) throws {
        try FileError.check(.truncate, path) { ftruncate(descriptor, off_t(length)) }
        try FileError.check(.sync, path) { fsync(descriptor) }
    }

    /// Whether `path` still names this open file: `HikeRecorder new` renames the file away,
    /// and what is appended after that belongs in a new one.
    var isStillAtPath: Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }
}
