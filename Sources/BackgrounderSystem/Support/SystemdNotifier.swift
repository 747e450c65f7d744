import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notification protocol (sd_notify(3)) without libsystemd: one datagram of
/// `KEY=VALUE` lines to the socket named by `$NOTIFY_SOCKET` (a path, or `@name` for an
/// abstract socket). Absent the variable (not started by systemd), every call does nothing.
package struct SystemdNotifier: Sendable {
    private let address: String?

    /// The notifier `$NOTIFY_SOCKET` names, if any.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        address = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether systemd listens.
    package var isActive: Bool { address != nil }

    /// Sends `KEY=VALUE` lines in one datagram.
    /// - Returns: Whether it was sent.
    @discardableResult
    package func notify(_ fields: [String]) -> Bool {
        guard let address else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        guard case (var socketAddress, let length)? = unixSocketAddress(address, abstract: true) else { return false }
        let message = Array(fields.joined(separator: "\n").utf8)
        let sent = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL), address, length)
            }
        }
        return sent == message.count
    }

    /// The watchdog interval systemd asked for (`$WATCHDOG_USEC`, for this process when
    /// `$WATCHDOG_PID` says so), or `nil`.
    package static func watchdogInterval(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"].flatMap(Int32.init), pid != getpid() { return nil }
        return .microseconds(microseconds)
    }
}
