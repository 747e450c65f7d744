public import BackgrounderCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The cgroup v2 freezer: each app in a child cgroup of the daemon's own; suspend writes
/// `cgroup.freeze`, and ``CgroupFreezeWatcher`` waits for `frozen 1` in `cgroup.events`;
/// kill writes `cgroup.kill`.
public struct CgroupFreezer: SuspensionMechanism {
    /// The daemon's cgroup directory, under which apps get theirs.
    public let base: String

    public var name: String { "cgroup" }

    /// Finds the daemon's cgroup v2 directory, makes the daemon's own group of app cgroups
    /// under it, and checks the freezer works there.
    ///
    /// The group is named after the state directory, so two daemons never share app cgroups
    /// (one's cleanup would kill the other's apps), and a daemon restarted after SIGKILL finds
    /// the apps its predecessor left and ends them: nobody supervises them any more.
    /// - Parameters:
    ///   - stateDirectory: The daemon's state directory.
    ///   - cgroup: The cgroup the daemon runs in, as `/proc/PID/cgroup` names it; by default
    ///     this process's (another process cleaning up after a daemon passes the daemon's).
    /// - Returns: The freezer, or the reason it cannot be used.
    public static func discover(stateDirectory: String, cgroup: String? = nil) -> Result<CgroupFreezer, DaemonError> {
        guard let mount = cgroup2Mount() else {
            return .failure(
                DaemonError(.configuration, path: "/proc/self/mountinfo", "no cgroup2 file system is mounted"))
        }
        guard let own = cgroup ?? self.cgroup(ofProcess: nil) else {
            return .failure(
                DaemonError(.configuration, path: "/proc/self/cgroup", "no cgroup v2 membership (0::) line"))
        }
        let base = (mount + own + "/backgrounder." + stableHash(stateDirectory))
            .replacingOccurrences(of: "//", with: "/")
        guard mkdir(base, 0o755) == 0 || errno == EEXIST else {
            return .failure(
                DaemonError(
                    .configuration, path: base, "cannot create child cgroups: \(String(cString: strerror(errno)))"))
        }
        let probe = base + "/probe-\(getpid())"
        guard mkdir(probe, 0o755) == 0 || errno == EEXIST else {
            return .failure(
                DaemonError(
                    .configuration, path: base, "cannot create child cgroups: \(String(cString: strerror(errno)))"))
        }
        defer { rmdir(probe) }
        guard access(probe + "/cgroup.freeze", W_OK) == 0, access(probe + "/cgroup.kill", W_OK) == 0 else {
            return .failure(
                DaemonError(
                    .configuration, path: probe, "no writable cgroup.freeze and cgroup.kill (kernel 5.14 or later)"))
        }
        return .success(CgroupFreezer(base: base))
    }

    /// Removes the daemon's group of app cgroups at a clean shutdown, with the empty app
    /// cgroups still in it (one whose last process was still dying when its app was released).
    /// - Returns: Whether the group is gone; it stays when an app in it is still running.
    @discardableResult
    public func removeBase() -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        for entry in entries where entry.hasPrefix("app-") || entry.hasPrefix("probe-") {
            let path = base + "/" + entry
            if !Self.isPopulated(path) { Self.remove(path) }
        }
        return Self.remove(base)
    }

    /// FNV-1a of a path, in hex: a short stable cgroup name.
    private static func stableHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// App cgroups left by an earlier run that this one did not adopt: their processes are
    /// killed (nobody supervises them) and the cgroups removed.
    /// - Parameter adopted: Cgroups of apps this run took over, left as they are.
    /// - Returns: The bundle identifiers whose leftovers were cleared.
    public func clearLeftovers(keeping adopted: Set<String> = []) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []
        var cleared: [String] = []
        for entry in entries where entry.hasPrefix("app-") {
            let path = base + "/" + entry
            guard !adopted.contains(path) else { continue }
            if Self.isPopulated(path) {
                try? write("1", to: path + "/cgroup.kill")
                cleared.append(String(entry.dropFirst(4)))
            }
            Self.remove(path)
        }
        return cleared
    }

    /// The cgroup2 mount point from /proc/self/mountinfo (/sys/fs/cgroup on unified
    /// systems, /sys/fs/cgroup/unified on hybrid ones).
    package static func cgroup2Mount() -> String? {
        guard let text = try? KernelFile.read("/proc/self/mountinfo").get() else { return nil }
        for line in text.split(separator: "\n") {
            // "36 25 0:31 / /sys/fs/cgroup rw,... - cgroup2 cgroup2 rw,..."
            let halves = line.components(separatedBy: " - ")
            guard halves.count == 2, halves[1].hasPrefix("cgroup2 ") else { continue }
            let fields = halves[0].split(separator: " ")
            if fields.count >= 5 { return String(fields[4]) }
        }
        return nil
    }

    /// A process's cgroup v2 path from /proc/PID/cgroup (the `0::` line); by default this
    /// process's.
    public static func cgroup(ofProcess pid: Int32?) -> String? {
        let file = "/proc/" + (pid.map(String.init) ?? "self") + "/cgroup"
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            return String(line.dropFirst(3))
        }
        return nil
    }

    public func prepare(appID: BundleID) throws -> AppContainer {
        let path = base + "/app-" + appID.rawValue
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw DaemonError(
                .configuration, path: path, "cannot create the app's cgroup: \(String(cString: strerror(errno)))")
        }
        // A cgroup left frozen by a daemon that was killed must not freeze the new process.
        try write("0", to: path + "/cgroup.freeze")
        return AppContainer(cgroupPath: path)
    }

    public func freeze(_ container: AppContainer, leader: Int32) throws {
        guard let path = container.cgroupPath else { return }
        try write("1", to: path + "/cgroup.freeze")
    }

    public func waitUntilFrozen(_ container: AppContainer, leader: Int32) async throws -> Bool {
        guard let path = container.cgroupPath else { return false }
        // Most freezes are complete by the time anyone asks; only the others need the thread.
        if Self.isFrozen(path) { return true }
        switch await CgroupFreezeWatcher.shared.waitUntilFrozen(path, within: Self.freezeLimit) {
        case .frozen: return true
        case .thawed: return false
        case .timedOut:
            throw DaemonError(
                .configuration, path: path + "/cgroup.events",
                "the freezer did not report frozen within \(Self.freezeLimit)")
        }
    }

    /// How long a freeze may take before it is reported as failed: a task in uninterruptible
    /// sleep (a hung network file system) holds it up.
    static let freezeLimit: Duration = .seconds(5)

    public func thaw(_ container: AppContainer, leader: Int32) throws {
        guard let path = container.cgroupPath else { return }
        try write("0", to: path + "/cgroup.freeze")
        CgroupFreezeWatcher.shared.recheck()
    }

    public func kill(_ container: AppContainer, leader: Int32) throws {
        guard let path = container.cgroupPath else { return }
        try write("1", to: path + "/cgroup.kill")
    }

    public func membership(of pid: Int32) throws -> ContainerMembership {
        let file = "/proc/\(pid)/cgroup"
        guard let text = try? String(contentsOfFile: file, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
        else {
            throw DaemonError(.configuration, path: file, "cannot read the process's cgroup v2 membership")
        }
        return Self.membership(ofCgroup: String(line.dropFirst(3)), base: base, mount: Self.cgroup2Mount() ?? "")
    }

    /// Where a cgroup path (as /proc/PID/cgroup gives it, relative to the mount) lies
    /// relative to the apps' base directory.
    ///
    /// Anything below any daemon's group of app cgroups (`backgrounder.HASH/app-ID`) is an
    /// app's, including sub-cgroups an app made and other daemons' apps.
    static func membership(ofCgroup cgroup: String, base: String, mount: String) -> ContainerMembership {
        // Slashes collapsed, so a daemon in the root cgroup ("0::/") compares like any other.
        let relativeBase = "/" + base.dropFirst(mount.count).split(separator: "/").joined(separator: "/")
        if cgroup.hasPrefix(relativeBase + "/") {
            let first = cgroup.dropFirst(relativeBase.count + 1).split(separator: "/").first.map(String.init) ?? ""
            return first.hasPrefix("app-") ? .app(BundleID(String(first.dropFirst(4)))) : .unnamedApp(cgroup)
        }
        let components = cgroup.split(separator: "/")
        for (index, component) in components.enumerated().dropLast()
        where component.hasPrefix("backgrounder.") && components[index + 1].hasPrefix("app-") {
            return .unnamedApp(cgroup)
        }
        return .outside
    }

    public func release(_ container: AppContainer) {
        guard let path = container.cgroupPath else { return }
        // Descendants killed with the app may still be dying (EBUSY): the empty cgroup then
        // stays for the app's next launch or the shutdown's sweep, rather than the daemon
        // waiting here.
        rmdir(path)
    }

    /// Whether `cgroup.events` says a process is still in the cgroup or below it.
    static func isPopulated(_ path: String) -> Bool { events(of: path, say: "populated 1") }

    /// Removes a cgroup, waiting up to two seconds while it is busy: after `cgroup.kill` or
    /// the exit of its last process the kernel empties it asynchronously, and `rmdir` says
    /// EBUSY until then. Only for shutdown and start-up sweeps, never a running daemon's actor.
    /// - Returns: Whether it is gone.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        while rmdir(path) != 0 {
            guard errno == EBUSY, ContinuousClock.now < deadline else { return errno == ENOENT }
            usleep(10_000)
        }
        return true
    }

    /// Whether `cgroup.events` says the cgroup is frozen.
    static func isFrozen(_ path: String) -> Bool { events(of: path, say: "frozen 1") }

    /// Whether `cgroup.freeze` asks for the cgroup to be frozen (the kernel may not be done).
    static func isFreezeRequested(_ path: String) -> Bool {
        (try? String(contentsOfFile: path + "/cgroup.freeze", encoding: .utf8))?.hasPrefix("1") == true
    }

    /// Whether a cgroup's `cgroup.events` has this line; not when it cannot be read.
    private static func events(of path: String, say line: String) -> Bool {
        guard let text = try? String(contentsOfFile: path + "/cgroup.events", encoding: .utf8) else { return false }
        return text.split(separator: "\n").contains(Substring(line))
    }

    private func write(_ value: String, to file: String) throws {
        let descriptor = open(file, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw DaemonError(.configuration, path: file, "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let written = value.withCString { Glibc.write(descriptor, $0, strlen($0)) }
        guard written >= 0 else {
            throw DaemonError(
                .configuration, path: file, "cannot write '\(value)': \(String(cString: strerror(errno)))")
        }
    }
}
