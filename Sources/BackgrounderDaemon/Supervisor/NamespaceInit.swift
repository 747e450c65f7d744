#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's rule for the first process of a PID namespace, which an app is under a
/// person's daemon (docs/SANDBOX.md): a signal it neither handles nor ignores is dropped, even
/// from outside the namespace, SIGKILL and SIGSTOP excepted. So SIGTERM, whose default is to
/// end the process, would do nothing to an app that never asked for it.
enum NamespaceInit {
    /// Whether `pid` is pid 1 of a PID namespace below the daemon's (the last `NSpid` of
    /// /proc/PID/status) and leaves `signal` at its default disposition (in neither `SigCgt`
    /// nor `SigIgn`): then the kernel drops it, and the daemon must act out the default.
    static func dropsDefault(_ signal: Int32, pid: Int32) -> Bool {
        guard case .success(let text) = KernelFile.read("/proc/\(pid)/status") else { return false }
        var fields: [Substring: [Substring]] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon]] = line[line.index(after: colon)...].split(whereSeparator: { $0 == "\t" || $0 == " " }
            )
        }
        guard let nspid = fields["NSpid"], nspid.count > 1, nspid.last == "1" else { return false }
        let bit = UInt64(1) << UInt64(signal - 1)
        let masks = ["SigCgt", "SigIgn"].compactMap { fields[$0]?.first.flatMap { UInt64($0, radix: 16) } }
        return masks.count == 2 && masks.allSatisfy { $0 & bit == 0 }
    }
}
