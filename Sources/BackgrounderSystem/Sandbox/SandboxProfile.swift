import Foundation

/// What one app may touch in the file system: its Landlock rules.
///
/// Everything not named here is out of reach: the state directory (database, logs, other
/// apps' data), every bundle directory but the app's own, policy plug-ins, and cgroupfs
/// (so an app cannot move itself out of its cgroup). The list is in docs/SANDBOX.md.
///
/// `/proc/self` cannot be named: the ruleset is built in the daemon, where `/proc/self` is
/// the daemon, and a rule holds on the directory opened, not on the name. So all of `/proc`
/// is readable; other processes' entries stay guarded by the kernel's ptrace checks, which
/// Landlock tightens (a sandboxed process may only inspect processes in its own domain) and
/// the per-app uid tightens again.
package struct SandboxProfile: Sendable, Hashable {
    /// Rights on a file or directory and everything beneath it.
    package struct Rule: Sendable, Hashable {
        /// The file or directory.
        package var path: String
        /// Landlock rights (`BG_LANDLOCK_ACCESS_FS_*`), masked later to the kernel's ABI.
        package var access: UInt64
        /// Skipped when missing (system directories a distribution may not have).
        package var optional: Bool
    }

    /// The rules, in the order they are added.
    package let rules: [Rule]

    /// System directories apps read and run programs and libraries from.
    package static let systemDirectories = ["/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/opt"]

    /// The profile of one app.
    /// - Parameters:
    ///   - bundleDirectory: The app's bundle: read and execute.
    ///   - dataDirectory: Its data directory: read, write, create, remove.
    ///   - temporaryDirectory: Its private temporary directory (`TMPDIR`): the same.
    package static func app(bundleDirectory: String, dataDirectory: String, temporaryDirectory: String)
        -> SandboxProfile
    {
        var rules = [Rule(path: bundleDirectory, access: Landlock.Access.readExecute, optional: false)]
        rules += systemDirectories.map { Rule(path: $0, access: Landlock.Access.readExecute, optional: true) }
        rules += [
            Rule(path: "/proc", access: Landlock.Access.read, optional: false),
            Rule(path: "/sys/devices/system/cpu", access: Landlock.Access.read, optional: true),
            Rule(path: "/dev/null", access: Landlock.Access.readWriteDevice, optional: false),
            Rule(path: "/dev/zero", access: Landlock.Access.readDevice, optional: true),
            Rule(path: "/dev/urandom", access: Landlock.Access.readDevice, optional: true),
            Rule(path: "/dev/random", access: Landlock.Access.readDevice, optional: true),
        ]
        // Name resolution: /etc/resolv.conf is often a link to /run (systemd-resolved,
        // NetworkManager); the network is allowed, so its target is readable too.
        let resolver = URL(fileURLWithPath: "/etc/resolv.conf").resolvingSymlinksInPath().path
        if !resolver.hasPrefix("/etc/") {
            rules.append(Rule(path: resolver, access: Landlock.Access.read, optional: true))
        }
        rules += [
            Rule(path: dataDirectory, access: Landlock.Access.ownDirectory, optional: false),
            Rule(path: temporaryDirectory, access: Landlock.Access.ownDirectory, optional: false),
        ]
        return SandboxProfile(rules: rules)
    }
}
