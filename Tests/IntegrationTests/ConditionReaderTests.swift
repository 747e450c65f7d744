import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import Logging
import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

/// External power and network read from trees of the kernel's shape: every rule of
/// PowerSupplyReader and NetworkReader, and the files they cannot read.
@Suite("Device condition readers", .timeLimit(.minutes(5)), .tearsDown)
struct ConditionReaderTests {
    // MARK: Power

    @Test("a machine without power supplies, or without the directory, counts as on external power")
    func noSupplies() throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        let empty = PowerSupplyReader(directory: tree.path("")).read()
        #expect(empty.externalPower)
        #expect(empty.source.contains("no power supplies"))
        #expect(empty.problems.isEmpty)
        let missing = PowerSupplyReader(directory: tree.path("absent")).read()
        #expect(missing.externalPower)
        #expect(missing.problems.isEmpty)
    }

    @Test("a laptop: mains offline and a discharging battery is battery power; mains online is external")
    func laptop() throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.supply("AC", type: "Mains", online: false)
        try tree.supply("BAT0", type: "Battery", status: "Discharging")
        let reader = PowerSupplyReader(directory: tree.path(""))
        let unplugged = reader.read()
        #expect(!unplugged.externalPower)
        #expect(unplugged.source == "AC (Mains) offline, BAT0 (Battery) Discharging")
        try tree.write("AC/online", "1")
        let plugged = reader.read()
        #expect(plugged.externalPower)
        #expect(plugged.source == "AC (Mains) online")
    }

    @Test(
        "USB supplies of every kind power the machine when online", arguments: ["USB", "USB_C", "USB_PD", "Wireless"])
    func usb(type: String) throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.supply("BAT0", type: "Battery", status: "Discharging")
        try tree.supply("ucsi-source-psy-1", type: type, online: false)
        let reader = PowerSupplyReader(directory: tree.path(""))
        #expect(!reader.read().externalPower)
        try tree.write("ucsi-source-psy-1/online", "1")
        #expect(reader.read().externalPower)
    }

    @Test(
        "a battery that says a charger is connected is on external power",
        arguments: [
            ("Charging", true), ("Full", true), ("Not charging", true), ("Discharging", false), ("Unknown", false),
        ]
    )
    func batteryOnly(status: String, external: Bool) throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.supply("BAT1", type: "Battery", status: status)
        #expect(PowerSupplyReader(directory: tree.path("")).read().externalPower == external)
    }

    @Test("a peripheral's battery (scope Device) says nothing about the machine")
    func peripheralBattery() throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.supply("hidpp_battery_0", type: "Battery", status: "Discharging")
        try tree.write("hidpp_battery_0/scope", "Device")
        let reading = PowerSupplyReader(directory: tree.path("")).read()
        #expect(reading.externalPower)
        #expect(reading.source.contains("no power supplies"))
    }

    @Test("unreadable files are problems with a defined outcome, never a crash")
    func unreadablePower() throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        // A supply whose type cannot be read is ignored...
        try tree.makeUnreadable("weird/type")
        // ...one whose online cannot be read counts as offline.
        try tree.write("AC/type", "Mains")
        try tree.makeUnreadable("AC/online")
        try tree.supply("BAT0", type: "Battery")
        let reading = PowerSupplyReader(directory: tree.path("")).read()
        #expect(!reading.externalPower)
        #expect(reading.problems.count == 3)
        #expect(reading.problems.contains { $0.contains("weird/type") && $0.contains("ignored") })
        #expect(reading.problems.contains { $0.contains("AC/online") && $0.contains("offline") })
        #expect(reading.problems.contains { $0.contains("BAT0/status") && $0.contains("does not exist") })
        // A file where the directory should be.
        try tree.write("file", "x")
        let notDirectory = PowerSupplyReader(directory: tree.path("file")).read()
        #expect(notDirectory.externalPower)
    }

    // MARK: Network

    static let header = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT"
    static let subnet = "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0"
    static let ipv4Default = "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0"
    /// The kernel's own unreachable `::/0` on lo, present on every machine with IPv6.
    static let ipv6Reject =
        "00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo"
    static let ipv6Default =
        "00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000002 00000000 00000003     wlan0"

    func networkReader(_ tree: SysfsTree) -> NetworkReader {
        NetworkReader(procNet: tree.path("proc"), classNet: tree.path("net"))
    }

    @Test("a default route on an interface that is up is network; a subnet route alone is not")
    func ipv4() throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.interface("eth0", operstate: "up", flags: "0x1003")
        try tree.write("proc/route", [Self.header, Self.subnet].joined(separator: "\n"))
        try tree.write("proc/ipv6_route", Self.ipv6Reject)
        let reader = networkReader(tree)
        let none = reader.read()
        #expect(!none.network)
        #expect(none.source == "no default route")
        #expect(none.problems.isEmpty)
        try tree.write("proc/route", [Self.header, Self.ipv4Default, Self.subnet].joined(separator: "\n"))
        let some = reader.read()
        #expect(some.network)
        #expect(some.source == "default route on eth0 (IPv4)")
    }

    @Test(
        "the route's interface must be up: operstate up or unknown and IFF_UP",
        arguments: [
            ("up", "0x1003", true), ("unknown", "0x1091", true), ("down", "0x1003", false),
            ("lowerlayerdown", "0x1003", false), ("up", "0x1002", false), ("dormant", "0x1003", false),
        ])
    func interfaceState(operstate: String, flags: String, network: Bool) throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.interface("eth0", operstate: operstate, flags: flags)
        try tree.write("proc/route", [Self.header, Self.ipv4Default].joined(separator: "\n"))
        #expect(networkReader(tree).read().network == network)
    }

    @Test("a reject default route is no way out")
    func rejectRoute() throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.interface("eth0", operstate: "up", flags: "0x1003")
        try tree.write(
            "proc/route",
            [Self.header, "eth0\t00000000\t00000000\t0201\t0\t0\t0\t00000000\t0\t0\t0"].joined(separator: "\n"))
        #expect(!networkReader(tree).read().network)
    }

    @Test("an IPv6 default route counts; the kernel's reject route on lo does not")
    func ipv6() throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.interface("wlan0", operstate: "up", flags: "0x1003")
        try tree.write("proc/route", Self.header)
        try tree.write("proc/ipv6_route", Self.ipv6Reject)
        #expect(!networkReader(tree).read().network)
        try tree.write("proc/ipv6_route", [Self.ipv6Default, Self.ipv6Reject].joined(separator: "\n"))
        let reading = networkReader(tree).read()
        #expect(reading.network)
        #expect(reading.source == "default route on wlan0 (IPv6)")
    }

    @Test("unreadable routing tables and interface files are problems with a defined outcome")
    func unreadableNetwork() throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        // No procfs at all: network is assumed, and said so.
        let blind = networkReader(tree).read()
        #expect(blind.network)
        #expect(blind.source.contains("counted as connected"))
        #expect(blind.problems.count == 1)
        // A route on an interface whose state cannot be read counts as down.
        try tree.write("proc/route", [Self.header, Self.ipv4Default].joined(separator: "\n"))
        try tree.makeUnreadable("net/eth0/operstate")
        let unknown = networkReader(tree).read()
        #expect(!unknown.network)
        #expect(unknown.problems.contains { $0.contains("net/eth0/operstate") })
        // Flags that are not hexadecimal.
        try FileManager.default.removeItem(atPath: tree.path("net/eth0/operstate"))
        try tree.interface("eth0", operstate: "up", flags: "zz")
        #expect(!networkReader(tree).read().network)
        // Garbage lines are skipped.
        try tree.write("proc/route", [Self.header, "eth0", "", "eth0 00000000 x y"].joined(separator: "\n"))
        #expect(!networkReader(tree).read().network)
    }

    // MARK: The monitor

    @Test("the monitor reports once at start and once per change, woken by inotify on the tree (no interval)")
    func monitorReportsChanges() async throws {
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.supply("AC", type: "Mains", online: false)
        try tree.supply("BAT0", type: "Battery", status: "Discharging")
        let calls = Locked<[[Bool]]>([])
        // An hour: only an event can bring the changes below in time.
        let monitor = try ConditionMonitor(
            power: PowerSupplyReader(directory: tree.path("")),
            network: NetworkReader(procNet: tree.path("proc"), classNet: tree.path("net")),
            interval: .seconds(3600), logger: Logger(label: "test")
        ) { power, network in calls.withLock { $0.append([power, network]) } }
        let running = Task { try await monitor.run() }
        defer { running.cancel() }
        // Generous deadlines: on a loaded runner the monitor's task may wait long for a thread.
        #expect(await waitUntil(timeout: .seconds(90)) { calls.withLock { $0.count } == 1 })
        #expect(monitor.status?.externalPower == false)
        #expect(monitor.status?.network == true)
        #expect(monitor.status?.events == "rtnetlink, inotify on the power-supply tree")
        #expect(monitor.status?.eventsUnavailable == nil)
        try tree.write("AC/online", "1")
        #expect(await waitUntil(timeout: .seconds(90)) { calls.withLock { $0.count } == 2 })
        #expect(monitor.status?.powerSource == "AC (Mains) online")
        try tree.write("AC/online", "0")
        #expect(await waitUntil(timeout: .seconds(90)) { calls.withLock { $0.count } == 3 })
        #expect(calls.withLock { $0 } == [[false, true], [true, true], [false, true]])
    }

    // MARK: Events

    @Test("a uevent counts for power only when its subsystem is power_supply")
    func powerSupplyUevents() {
        func message(_ fields: [String]) -> ArraySlice<UInt8> {
            ArraySlice(fields.flatMap { Array($0.utf8) + [0] })
        }
        #expect(
            ConditionEvents.isPowerSupplyUevent(
                message([
                    "change@/devices/LNXSYSTM:00/ACPI0003:00/power_supply/AC", "ACTION=change",
                    "SUBSYSTEM=power_supply", "POWER_SUPPLY_ONLINE=1",
                ])))
        #expect(
            !ConditionEvents.isPowerSupplyUevent(
                message(["change@/devices/virtual/mem/null", "ACTION=change", "SUBSYSTEM=mem"])))
        // A value that merely contains the text is not the field.
        #expect(!ConditionEvents.isPowerSupplyUevent(message(["add@/x", "DEVNAME=SUBSYSTEM=power_supply"])))
        #expect(!ConditionEvents.isPowerSupplyUevent(message([])))
    }

    @Test(
        "the kernel's uevents reach the power source: a synthetic one for another subsystem wakes it and is not taken for power",
        .enabled(
            if: getuid() == 0
                && (try? String(contentsOfFile: "/proc/self/uid_map", encoding: .utf8))?
                    .split(whereSeparator: \.isWhitespace) == ["0", "0", "4294967295"],
            "writing a device's uevent file needs root, and uevents reach only the initial user namespace (CI runs as root in it)"
        ))
    func kernelUeventsArrive() throws {
        let events = ConditionEvents(powerSupplyDirectory: "/sys/class/power_supply")
        #expect(events.summary == "rtnetlink, power-supply uevents", "\(events.unavailable)")
        try "change".write(toFile: "/sys/class/mem/null/uevent", atomically: false, encoding: .utf8)
        // Readable now or soon: the kernel queues the message before the write returns.
        var ready = events.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        #expect(poll(&ready, nfds_t(ready.count), 10_000) > 0)
        let uevents = try #require(ready.last)
        #expect(uevents.revents != 0)
        #expect(!events.drain(uevents.fd))
    }
}
