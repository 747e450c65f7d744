import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderDaemon
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTestSupport
import BackgrounderTransfers
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace of its own (iproute2's `ip netns`) holding a veth pair with both
/// ends inside and up, so a daemon run in it sees a real interface and a routing table the
/// test controls: first no default route, then one. (Dummy interfaces do not come up on every
/// kernel the tests run on; veth does.) Removed by ``remove()``, which every test calls.
struct NetworkNamespace {
    let name: String
    /// The veth end the default route leaves through.
    let interface = "bgveth0"

    /// iproute2's `ip`.
    static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether namespaces can be made here: root, and an `ip` that knows `netns`.
    static let isAvailable: Bool = {
        guard getuid() == 0, ip != nil else { return false }
        return (try? run(["netns", "list"])) != nil
    }()

    /// Makes the namespace and its veth pair, with an address but no default route.
    init() throws {
        name = "bgcond-" + UUID().uuidString.prefix(8).lowercased()
        try Self.run(["netns", "add", name])
        do {
            try Self.run(["-n", name, "link", "add", interface, "type", "veth", "peer", "name", "bgveth1"])
            // No IPv6 link-local addresses: the kernel adds them a second or two after the
            // link is up (duplicate address detection), routes the daemon hears as network
            // events, long after the namespace was made, inside a test's quiet window.
            for link in [interface, "bgveth1"] {
                try Self.run(["-n", name, "link", "set", "dev", link, "addrgenmode", "none"])
            }
            try Self.run(["-n", name, "link", "set", interface, "up"])
            try Self.run(["-n", name, "link", "set", "bgveth1", "up"])
            try Self.run(["-n", name, "addr", "add", "10.231.0.1/24", "dev", interface])
        } catch {
            remove()
            throw error
        }
    }

    /// The prefix that runs a command inside the namespace.
    var launcher: [String] { [Self.ip ?? "ip", "netns", "exec", name] }

    /// Adds a default route through the veth pair.
    func addDefaultRoute() throws {
        try Self.run(["-n", name, "route", "add", "default", "via", "10.231.0.2", "dev", interface])
    }

    /// Removes the default route.
    func removeDefaultRoute() throws {
        try Self.run(["-n", name, "route", "del", "default"])
    }

    /// Deletes the namespace and with it the veth pair.
    func remove() {
        _ = try? Self.run(["netns", "delete", name])
    }

    /// Runs `ip` with `arguments` to its end, throwing with its output when it fails.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        guard let ip else { throw HarnessError("iproute2's ip is not installed") }
        let log = TemporaryDirectory.uniquePath("bgcond-ip", suffix: ".log")
        defer { unlink(log) }
        let pid = try ProcessLauncher.spawn(ip, arguments: arguments, environment: [:], output: log, truncate: true)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw HarnessError("ip \(arguments.joined(separator: " ")) failed (\(status)): \(output)")
        }
        return output
    }
}
