#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's rule for the first process of a PID namespace, which an app is under a
/// person's daemon (docs/SANDBOX.md): a signal it neither handles nor ignores is dropped, even
/// from outside the namespace, SIGKILL and SIGSTOP excepted. So SIGTERM, whose default is to
/// end the process, would do nothing to an app that never asked for it.
package enum NamespaceInit {
    /// Whether `pid` is pid 1 of a PID namespace below the daemon's (the last `NSpid` of
    /// /proc/PID/status) and leaves `signal` at its default disposition (in neither `SigCgt`
    /// nor `SigIgn`) and unblocked (not in `SigBlk`, nor waited for in `sigwait`: a blocked
    /// signal is queued, for a `signalfd` or `sigwait` to take): then the kernel drops it, and
    /// the daemon must act out the default.
    package static func dropsDefault(_ signal: Int32, pid: Int32) -> Bool {
        // In sigwait the signals waited for are lifted from SigBlk for the wait, yet the kernel
        // queues them (it keeps the mask the waiter had): a lead process in that call may be
        // waiting for this one, and the grace period ends it if not. Looked at before and after
        // the masks, so a wait cannot begin and end between the two unseen. Asked before the
        // signal is sent (see Supervisor.requestTermination).
        guard !isWaitingForSignals(pid: pid),
            case .success(let text) = KernelFile.read("/proc/\(pid)/status"),
            !isWaitingForSignals(pid: pid)
        else { return false }
        var fields: [Substring: [Substring]] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon]] = line[line.index(after: colon)...].split(whereSeparator: { $0 == "\t" || $0 == " " }
            )
        }
        guard let nspid = fields["NSpid"], nspid.count > 1, nspid.last == "1" else { return false }
        let bit = UInt64(1) << UInt64(signal - 1)
        let masks = ["SigCgt", "SigIgn", "SigBlk"].compactMap { fields[$0]?.first.flatMap { UInt64($0, radix: 16) } }
        return masks.count == 3 && masks.allSatisfy { $0 & bit == 0 }
    }

    /// rt_sigtimedwait's number, the call under sigwait, sigwaitinfo and sigtimedwait.
    #if arch(x86_64)
        private static let signalWaitCall = "128"
    #else
        private static let signalWaitCall = "137"
    #endif

    /// Whether the lead thread is in rt_sigtimedwait (the first field of /proc/PID/syscall);
    /// `true` when that cannot be read, so nothing is killed on a guess.
    private static func isWaitingForSignals(pid: Int32) -> Bool {
        guard case .success(let text) = KernelFile.read("/proc/\(pid)/syscall") else { return true }
        return text.split(separator: " ").first.map(String.init) == signalWaitCall
    }
}
