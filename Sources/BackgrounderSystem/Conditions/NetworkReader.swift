/// What the kernel's routing tables say about network connectivity, and why.
package struct NetworkReading: Sendable, Hashable {
    /// Whether a default route leaves through an interface that is up.
    package var network: Bool
    /// Where that comes from: `default route on eth0 (IPv4)`, `no default route`, or the
    /// default that was applied.
    package var source: String
    /// Files that could not be read; the monitor logs each once.
    package var problems: [String] = []
}

/// Reads network connectivity from the kernel: a default route (`/proc/net/route`,
/// destination and mask `00000000`; `/proc/net/ipv6_route`, `::/0`) that is up and not a
/// reject route, on an interface whose `/sys/class/net/IF/operstate` is `up` or `unknown`
/// (virtual interfaces without carrier detection say `unknown`) and whose `flags` hold
/// IFF_UP. That is "a way out", not "the internet answers": iOS's condition means the same.
///
/// When neither routing table can be read (no procfs), network is assumed, as power is on a
/// machine without power supplies: work must not wait for ever on a file the daemon cannot
/// see. A missing `ipv6_route` (IPv6 disabled) is normal and not a problem.
package struct NetworkReader: Sendable {
    /// The directory holding `route` and `ipv6_route`: `/proc/net`, which is per network
    /// namespace (it links to /proc/self/net).
    package var procNet = "/proc/net"
    /// The network class directory.
    package var classNet = "/sys/class/net"

    /// RTF_UP and RTF_REJECT from <linux/route.h> (also used by ipv6_route's flags).
    private static let routeUp: UInt32 = 0x0001
    private static let routeReject: UInt32 = 0x0200
    /// IFF_UP from <net/if.h>.
    private static let interfaceUp: UInt32 = 0x1

    /// Reads the routing tables now.
    package func read() -> NetworkReading {
        var problems: [String] = []
        var readable = false
        var candidates: [(interface: String, family: String)] = []
        switch KernelFile.read(procNet + "/route") {
        case .success(let text):
            readable = true
            candidates += Self.ipv4Defaults(text).map { ($0, "IPv4") }
        case .failure(let failure):
            problems.append("cannot read \(procNet)/route: \(failure)")
        }
        switch KernelFile.read(procNet + "/ipv6_route") {
        case .success(let text):
            readable = true
            candidates += Self.ipv6Defaults(text).map { ($0, "IPv6") }
        case .failure(.missing):
            break
        case .failure(let failure):
            problems.append("cannot read \(procNet)/ipv6_route: \(failure)")
        }
        guard readable else {
            return NetworkReading(
                network: true, source: "no routing table readable in \(procNet): counted as connected",
                problems: problems)
        }
        var down: [String] = []
        for (interface, family) in candidates {
            if let reason = isDown(interface, problems: &problems) {
                down.append("\(interface) \(reason)")
            } else {
                return NetworkReading(
                    network: true, source: "default route on \(interface) (\(family))", problems: problems)
            }
        }
        let source =
            down.isEmpty
            ? "no default route"
            : "default route on an interface that is down: " + Set(down).sorted().joined(separator: ", ")
        return NetworkReading(network: false, source: source, problems: problems)
    }

    /// Why an interface cannot carry traffic, or `nil` when it can.
    private func isDown(_ interface: String, problems: inout [String]) -> String? {
        let directory = classNet + "/" + interface
        switch KernelFile.read(directory + "/operstate") {
        case .success("up"), .success("unknown"):
            break
        case .success(let state):
            return "is \(state)"
        case .failure(let failure):
            problems.append("cannot read \(directory)/operstate: \(failure); interface counted as down")
            return "operstate unreadable"
        }
        switch KernelFile.read(directory + "/flags") {
        case .success(let text):
            guard let flags = UInt32(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16) else {
                problems.append("\(directory)/flags is not hexadecimal; interface counted as down")
                return "flags unreadable"
            }
            return flags & Self.interfaceUp != 0 ? nil : "is administratively down"
        case .failure(let failure):
            problems.append("cannot read \(directory)/flags: \(failure); interface counted as down")
            return "flags unreadable"
        }
    }

    /// Interfaces of usable IPv4 default routes, in table order. Columns: Iface Destination
    /// Gateway Flags RefCnt Use Metric Mask MTU Window IRTT, numbers in hexadecimal.
    package static func ipv4Defaults(_ table: String) -> [String] {
        table.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 8, fields[1] == "00000000", fields[7] == "00000000",
                let flags = UInt32(fields[3], radix: 16), isUsable(flags)
            else { return nil }
            return String(fields[0])
        }
    }

    /// Interfaces of usable IPv6 default routes (`::/0`), in table order. Columns:
    /// destination, prefix length, source, prefix length, next hop, metric, references, use,
    /// flags, interface. The kernel's own `::/0` reject route on `lo` is not a way out.
    package static func ipv6Defaults(_ table: String) -> [String] {
        table.split(separator: "\n").compactMap { line in
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 10, fields[0].allSatisfy({ $0 == "0" }), fields[1] == "00",
                let flags = UInt32(fields[8], radix: 16), isUsable(flags), fields[9] != "lo"
            else { return nil }
            return String(fields[9])
        }
    }

    private static func isUsable(_ flags: UInt32) -> Bool {
        flags & routeUp != 0 && flags & routeReject == 0
    }
}
