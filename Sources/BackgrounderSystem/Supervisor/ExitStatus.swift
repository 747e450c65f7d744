package import BackgrounderProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// How a process ended, from its `waitpid` status.
package enum ExitStatus: Sendable, Hashable, CustomStringConvertible {
    /// It called `exit` with this code.
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32)
    /// It ended, but how is its parent's to know: a process adopted from an earlier run of
    /// the daemon is not this run's child.
    case unknown

    package init(waitStatus status: Int32) {
        let signal = status & 0x7f
        self = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    /// Whether it looks like a crash (a fatal signal the app did not ask for, or a failure code).
    package var isCrash: Bool {
        switch self {
        case .exited(let code): code != 0
        case .signaled(let signal): signal != SIGTERM && signal != SIGKILL && signal != SIGINT
        case .unknown: false
        }
    }

    /// The account `bgctl ps` gives of it, as `kind` (and, when the system ended it, `reason`).
    package func exit(_ kind: AppExit.Kind, reason: String? = nil) -> AppExit {
        switch self {
        case .exited(let code): AppExit(kind: kind, status: code, reason: reason)
        case .signaled(let signal): AppExit(kind: kind, signal: signal, reason: reason)
        case .unknown: AppExit(kind: kind, reason: reason ?? "status unknown: started by an earlier run of the daemon")
        }
    }

    package var description: String {
        switch self {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "killed by signal \(signal) (\(String(cString: strsignal(signal))))"
        case .unknown: "ended (status unknown: started by an earlier run of the daemon)"
        }
    }
}
