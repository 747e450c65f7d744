import BackgroundKit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The alerts the app raised, one line each (`2024-06-10T07:13:20.000Z enter home`), in
/// `alerts.log` in its data directory.
struct AlertLog {
    /// Entering or leaving.
    enum Transition: String {
        case enter, exit
    }

    /// The log's path.
    let path: String

    /// One line of the log, without its newline: time, transition, identifier (the rest of the
    /// line, so an identifier may hold spaces).
    /// - Parameters:
    ///   - time: Seconds since 1970-01-01 UTC.
    ///   - transition: Entering or leaving.
    ///   - identifier: The region.
    /// - Returns: The line.
    static func line(time: Double, _ transition: Transition, _ identifier: String) -> String {
        let date = Date(timeIntervalSince1970: time)
        return
            "\(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))) \(transition.rawValue) \(identifier)"
    }

    /// Appends a line and waits until it is on disk, so an alert the app raised is in the
    /// log even if the app is killed right after.
    /// - Parameter line: The line, without its newline.
    /// - Throws: An error naming the file and the failed call.
    func append(_ line: String) throws {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw AlertLogError(path: path, call: "open", systemError: errno) }
        defer { close(descriptor) }
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw AlertLogError(path: path, call: "write", systemError: errno)
            }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw AlertLogError(path: path, call: "fsync", systemError: errno) }
    }
}

/// The alert log could not be written.
struct AlertLogError: Error, CustomStringConvertible {
    /// The log.
    var path: String
    /// The system call that failed.
    var call: String
    /// Its `errno`.
    var systemError: Int32

    var description: String { "cannot \(call) \(path): \(String(cString: strerror(systemError)))" }
}
