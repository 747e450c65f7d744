import Foundation

/// How an app's last process ended, in `bgctl ps`: `lastExit`. Before protocol 1.5 this was
/// prose; now scripts read the parts and people read ``description``.
public struct AppExit: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Who ended it.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// It exited by itself with status 0, or a signal it may expect (SIGTERM, SIGINT, SIGKILL).
        case exited
        /// It exited with a failure status or a fatal signal nobody sent.
        case crashed
        /// The system ended it; ``AppExit/reason`` says why.
        case terminated
    }

    /// Who ended it.
    public var kind: Kind
    /// The exit status, when it called `exit`.
    public var status: Int32?
    /// The signal that ended it, when one did.
    public var signal: Int32?
    /// Why the system ended it (`background task overran`, `memory pressure`, ...), or why
    /// how it ended is unknown (`not adopted after a daemon restart`).
    public var reason: String?

    /// Creates an account of an exit.
    public init(kind: Kind, status: Int32? = nil, signal: Int32? = nil, reason: String? = nil) {
        self.kind = kind
        self.status = status
        self.signal = signal
        self.reason = reason
    }

    /// `crashed: killed by signal 11 (Segmentation fault)`, `terminated: memory pressure`.
    public var description: String {
        var text = kind.rawValue
        if let reason { text += ": \(reason)" }
        if let status {
            text += reason == nil ? ": exited with status \(status)" : " (exited with status \(status))"
        } else if let signal {
            let name = String(cString: strsignal(signal))
            text += reason == nil ? ": killed by signal \(signal) (\(name))" : " (signal \(signal), \(name))"
        }
        return text
    }
}

/// Why launches of an app are refused for now, in `bgctl ps`: `throttled`.
public struct AppThrottle: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Why: `crash loop`.
    public var reason: String
    /// Seconds until launches are allowed again.
    public var secondsRemaining: Double

    /// Creates a throttle.
    public init(reason: String, secondsRemaining: Double) {
        self.reason = reason
        self.secondsRemaining = secondsRemaining
    }

    /// `crash loop; launches refused for 12.5 s`.
    public var description: String {
        "\(reason); launches refused for \(String(format: "%.1f", secondsRemaining)) s"
    }
}
