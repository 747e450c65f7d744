import BackgrounderTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The processes of a uid a test runs a daemon and its apps as: what a containment test
/// judges, and what its teardown ends, so a test that fails (an app's process escaped) leaves
/// nothing spinning for the rest of the suite.
enum UserProcesses {
    /// Live processes (not zombies) whose real uid is `uid`, sorted.
    static func live(of uid: UInt32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
            let lines = status.split(separator: "\n")
            let state = lines.first { $0.hasPrefix("State:") }?.split(separator: "\t").dropFirst().first
            let real = lines.first { $0.hasPrefix("Uid:") }?.split(separator: "\t").dropFirst().first
            return real == Substring(String(uid)) && state?.hasPrefix("Z") != true
        }.sorted()
    }

    /// SIGKILLs every process of `uid` until none is left (or a minute passes).
    static func end(of uid: UInt32) async {
        await waitUntil {
            let left = live(of: uid)
            for pid in left { kill(pid, SIGKILL) }
            return left.isEmpty
        }
    }
}
