import BackgrounderTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real memory limit over a daemon's apps, for the jetsam test: the kernel enforces it, and
/// its OOM killer picks the victim by size and `oom_score_adj`, the band the daemon gives each
/// app's state.
///
/// Two kinds, by what the machine has:
/// - a cgroup v1 memory group the test makes (a hybrid hierarchy, as on the development
///   machine, where `memory` is on v1 at /sys/fs/cgroup/memory and the cgroup2 mount has no
///   memory controller): the daemon is started in it (``launcher``), so every app it launches
///   is born there;
/// - cgroup v2's `memory.max` on the daemon's own group of app cgroups (`backgrounder.HASH`),
///   where the daemon could enable the memory controller for them (`bgctl status` says so).
final class MemoryLimit: Sendable {
    enum Kind: Sendable { case v1, v2 }

    let kind: Kind
    /// The v1 group the test made; for v2, set once the daemon's group is known.
    private let v1Group: String?

    static let v1Root = "/sys/fs/cgroup/memory"

    /// Whether either kind can be had here: a writable v1 memory hierarchy, or a cgroup2
    /// hierarchy offering the memory controller to this process's cgroup (which the daemon,
    /// started from here, then enables for its apps).
    static var isAvailable: Bool {
        if access(v1Root + "/cgroup.procs", W_OK) == 0 { return true }
        guard let mount = LifecycleTests.cgroup2Mount(),
            let own = ownCgroup(hierarchy: { $0.hasPrefix("0::") })
        else { return false }
        let controllers = (try? String(contentsOfFile: mount + own + "/cgroup.controllers", encoding: .utf8)) ?? ""
        return controllers.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("memory")
    }

    /// This process's path in one hierarchy of /proc/self/cgroup.
    private static func ownCgroup(hierarchy: (Substring) -> Bool) -> String? {
        let text = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        guard let line = text.split(separator: "\n").first(where: hierarchy),
            let colon = line.lastIndex(of: ":")
        else { return nil }
        return String(line[line.index(after: colon)...])
    }

    /// Makes the v1 group (under this process's own v1 memory group, so any limit above it
    /// still holds) where the v1 hierarchy is there; otherwise plans on v2.
    init() throws {
        if access(Self.v1Root + "/cgroup.procs", W_OK) == 0 {
            let own = Self.ownCgroup { $0.split(separator: ":").dropFirst().first == "memory" } ?? "/"
            let group = (Self.v1Root + own + "/backgrounder-test-jetsam-" + UUID().uuidString.prefix(8))
                .replacingOccurrences(of: "//", with: "/")
            guard mkdir(group, 0o755) == 0 else {
                throw HarnessError("cannot make \(group): \(String(cString: strerror(errno)))")
            }
            kind = .v1
            v1Group = group
        } else {
            kind = .v2
            v1Group = nil
        }
    }

    /// Runs the daemon inside the v1 group (the shell joins it, then execs the daemon, so the
    /// daemon keeps the shell's pid); nothing for v2, where the daemon's own cgroup is used.
    var launcher: [String] {
        guard let v1Group else { return [] }
        return ["/bin/sh", "-c", "echo $$ > '\(v1Group)/cgroup.procs' && exec \"$0\" \"$@\""]
    }

    /// The directory whose limit holds every app: the v1 group, or for v2 the parent of an
    /// app's cgroup (the daemon's `backgrounder.HASH`), which has `memory.max` only where the
    /// daemon enabled the controller.
    func directory(appPid: Int32) throws -> String {
        if let v1Group {
            let membership = (try? String(contentsOfFile: "/proc/\(appPid)/cgroup", encoding: .utf8)) ?? ""
            let line = membership.split(separator: "\n").first {
                $0.split(separator: ":").dropFirst().first == "memory"
            }
            guard let line, v1Group.hasSuffix(String(line.split(separator: ":", maxSplits: 2).last ?? "")) else {
                throw HarnessError("app \(appPid) is not in \(v1Group): \(membership)")
            }
            return v1Group
        }
        guard let app = SuspensionEvidence.cgroupDirectory(of: appPid) else {
            throw HarnessError("no cgroup v2 for app \(appPid)")
        }
        let base = (app as NSString).deletingLastPathComponent
        guard FileManager.default.fileExists(atPath: base + "/memory.max") else {
            throw HarnessError("\(base) has no memory.max: the daemon could not enable the memory controller")
        }
        return base
    }

    /// Memory charged to the group that reclaim cannot give back without swap: all of it but
    /// the page cache of files.
    func unreclaimableBytes(in directory: String) -> Int? {
        let stat = Self.keyed(directory + "/memory.stat")
        switch kind {
        case .v1:
            guard let usage = Self.number(directory + "/memory.usage_in_bytes"),
                let active = stat["total_active_file"], let inactive = stat["total_inactive_file"]
            else { return nil }
            return usage - active - inactive
        case .v2:
            guard let usage = Self.number(directory + "/memory.current"), let file = stat["file"] else { return nil }
            return usage - file
        }
    }

    /// Sets the hard limit.
    func limit(_ bytes: Int, in directory: String) throws {
        let file = directory + (kind == .v1 ? "/memory.limit_in_bytes" : "/memory.max")
        try "\(bytes)\n".write(toFile: file, atomically: false, encoding: .utf8)
    }

    /// How many processes the kernel's OOM killer has ended in the group.
    func oomKills(in directory: String) -> Int? {
        Self.keyed(directory + (kind == .v1 ? "/memory.oom_control" : "/memory.events"))["oom_kill"]
    }

    /// Removes the v1 group once nothing is left in it (the daemon stopped); v2's is the
    /// daemon's, removed by its stop.
    func remove() async {
        guard let v1Group else { return }
        _ = await waitUntil(timeout: .seconds(10)) { rmdir(v1Group) == 0 || errno == ENOENT }
    }

    private static func number(_ path: String) -> Int? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// `key value` lines.
    private static func keyed(_ path: String) -> [String: Int] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var values: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 2, let value = Int(fields[1]) { values[String(fields[0])] = value }
        }
        return values
    }
}
