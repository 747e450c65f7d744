#if canImport(Glibc)
    import Glibc
#endif

/// Checks, before anything is read or written, that a file can be written where a person asked,
/// so the reason names their path (`/nonexistent/dir does not exist`), not a temporary file
/// made beside it.
enum OutputTarget {
    /// Why `path` cannot be written, or `nil` when it can be tried.
    /// - Parameter path: The file a person named.
    /// - Returns: `cannot write /nonexistent/dir/walk.gpx: the directory /nonexistent/dir does
    ///   not exist (No such file or directory)`, or `nil`.
    static func problem(with path: String) -> String? {
        guard !path.isEmpty else { return "cannot write '': an empty path names no file" }
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            return "cannot write \(path): it is a directory; name a file in it"
        }
        guard stat(directory, &info) == 0 else {
            let error = errno
            let what = error == ENOENT ? "does not exist" : "cannot be reached"
            return "cannot write \(path): the directory \(directory) \(what) (\(reason(error)))"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return "cannot write \(path): \(directory) is not a directory"
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            let error = errno
            return "cannot write \(path): the directory \(directory) may not be written (\(reason(error)))"
        }
        if access(path, F_OK) == 0, access(path, W_OK) != 0 {
            let error = errno
            return "cannot write \(path): \(reason(error))"
        }
        return nil
    }

    private static func reason(_ error: Int32) -> String { String(cString: strerror(error)) }
}
