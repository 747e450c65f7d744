import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The cgroup v2 controllers (`cpu`, `memory`, `io`, `pids`) the daemon could give its app cgroups,
/// so the kernel weighs and limits each app, not just freezes it.
///
/// A cgroup gets a controller only if its parent enables it in `cgroup.subtree_control`, and
/// a cgroup with processes of its own cannot enable any (the "no internal processes" rule).
/// So, where the daemon's own cgroup offers controllers (systemd's `Delegate=yes`), the daemon
/// moves itself into a leaf `daemon/` below it, then enables the controllers for the base of
/// its app cgroups and for the apps below that. Where they are not offered (no systemd, no
/// delegation, a cgroup v1 hybrid), nothing changes and ``summary`` says why.
package struct CgroupControllers: Sendable {
    /// The controllers the app cgroups have.
    package let enabled: [String]
    /// For `bgctl status`.
    package let summary: String

    package static let wanted = ["cpu", "memory", "io", "pids"]

    /// Enables what it can for the app cgroups under `base`, whose parent is the daemon's
    /// own cgroup `own` (both absolute paths).
    package static func enable(base: String, own: String) -> CgroupControllers {
        let offered = controllers(own + "/cgroup.controllers")
        let usable = wanted.filter(offered.contains)
        guard !usable.isEmpty else {
            return CgroupControllers(
                enabled: [],
                summary:
                    "no cpu, memory, io or pids controller delegated to \(own) (run under systemd with Delegate=yes)"
            )
        }
        // Leave the daemon's own cgroup to its children: the daemon moves to a leaf.
        let leaf = own + "/daemon"
        if mkdir(leaf, 0o755) != 0 && errno != EEXIST || !write("\(getpid())", to: leaf + "/cgroup.procs") {
            return CgroupControllers(
                enabled: [], summary: "cannot move the daemon into \(leaf): \(String(cString: strerror(errno)))")
        }
        let request = usable.map { "+" + $0 }.joined(separator: " ")
        guard write(request, to: own + "/cgroup.subtree_control"), write(request, to: base + "/cgroup.subtree_control")
        else {
            return CgroupControllers(
                enabled: [],
                summary: "cannot enable \(usable.joined(separator: ", ")): \(String(cString: strerror(errno)))")
        }
        let enabled = usable.filter(controllers(base + "/cgroup.subtree_control").contains)
        return CgroupControllers(enabled: enabled, summary: "app cgroups with \(enabled.joined(separator: ", "))")
    }

    /// None: the signals mechanism, or no cgroup at all.
    package static let none = CgroupControllers(enabled: [], summary: "no app cgroups")

    package static func controllers(_ path: String) -> Set<String> {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return Set(text.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
    }

    @discardableResult
    package static func write(_ text: String, to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return (try? writeAll(descriptor, Array(text.utf8))) != nil
    }
}
