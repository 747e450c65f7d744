#if canImport(Glibc)
    import Glibc
#endif

/// A file operation that failed, with the path and `errno` a reader needs.
struct FileError: Error, CustomStringConvertible {
    /// What was being done.
    enum Code: String {
        case open, create, read, write, sync, truncate, rename
    }

    /// What was being done.
    var code: Code
    /// The file.
    var path: String
    /// The `errno` the system call left.
    var systemError: Int32

    var description: String {
        "cannot \(code.rawValue) \(path): \(String(cString: strerror(systemError)))"
    }

    /// Runs a system call, again while a signal interrupts it, and throws when it fails.
    /// - Parameters:
    ///   - code: What the call does, for the message.
    ///   - path: The file it works on.
    ///   - call: The call; -1 means failure, with `errno` set.
    /// - Returns: What the call returned.
    /// - Throws: ``FileError`` with the call's `errno`.
    @discardableResult
    static func check<Result: BinaryInteger>(
        _ code: Code, _ path: String, _ call: () -> Result
    ) throws -> Result {
        while true {
            let result = call()
            if result != -1 { return result }
            if errno != EINTR { throw FileError(code: code, path: path, systemError: errno) }
        }
    }
}
