import BackgrounderProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's notices that a condition may have changed, so the monitor reads its files
/// only then and sleeps in poll(2) with no timeout in between:
/// - network: an rtnetlink socket on the link and route groups (an interface going up or
///   down, a default route added or removed), in the daemon's own network namespace;
/// - power: a uevent socket for the `power_supply` subsystem when the supplies are the
///   kernel's (sysfs attributes do not support inotify or poll), or inotify on a tree of the
///   same shape elsewhere (`--power-supply-dir` in tests and containers), where writes are
///   ordinary file changes.
///
/// A source that cannot be opened (seccomp, no netlink in a sandbox) is named in
/// ``unavailable``; the monitor then reads on its interval as well.
package final class ConditionEvents {
    /// One event source, with the descriptor poll(2) waits on.
    private enum Source {
        case routes(Int32)
        case powerUevents(Int32)
        case powerTree(Int32, directory: String)

        var descriptor: Int32 {
            switch self {
            case .routes(let descriptor), .powerUevents(let descriptor), .powerTree(let descriptor, _): descriptor
            }
        }

        var name: String {
            switch self {
            case .routes: "rtnetlink"
            case .powerUevents: "power-supply uevents"
            case .powerTree: "inotify on the power-supply tree"
            }
        }
    }

    private var sources: [Source] = []
    /// Sources that could not be opened, each with why.
    package private(set) var unavailable: [String] = []

    /// From <linux/netlink.h> and <linux/rtnetlink.h>: a stable ABI Glibc's module does not
    /// export.
    private static let netlinkRoute: Int32 = 0
    private static let netlinkKernelUevent: Int32 = 15
    private static let routeGroups: UInt32 = 0x1 | 0x40 | 0x400  // RTMGRP_LINK, _IPV4_ROUTE, _IPV6_ROUTE
    private static let kernelUeventGroup: UInt32 = 0x1

    private static let treeMask = UInt32(
        IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB)

    /// Opens the sources for `powerSupplyDirectory` and the network namespace.
    package init(powerSupplyDirectory: String) {
        switch Self.netlinkSocket(Self.netlinkRoute, groups: Self.routeGroups) {
        case .success(let descriptor): sources.append(.routes(descriptor))
        case .failure(let reason): unavailable.append("rtnetlink: \(reason)")
        }
        if Self.isSysfs(powerSupplyDirectory) {
            if !Self.inInitialUserNamespace {
                // The kernel sends uevents only to sockets of the initial user namespace's
                // network namespaces: in a container the socket binds and hears nothing.
                unavailable.append("power-supply uevents: not delivered inside a user namespace")
            } else {
                switch Self.netlinkSocket(Self.netlinkKernelUevent, groups: Self.kernelUeventGroup) {
                case .success(let descriptor): sources.append(.powerUevents(descriptor))
                case .failure(let reason): unavailable.append("power-supply uevents: \(reason)")
                }
            }
        } else {
            let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            if inotify < 0 {
                unavailable.append("inotify on \(powerSupplyDirectory): \(String(cString: strerror(errno)))")
            } else if inotify_add_watch(inotify, powerSupplyDirectory, Self.treeMask) < 0 {
                // A tree that is not there yet: read on the interval until it is.
                unavailable.append("inotify on \(powerSupplyDirectory): \(String(cString: strerror(errno)))")
                close(inotify)
            } else {
                sources.append(.powerTree(inotify, directory: powerSupplyDirectory))
                watchTree()
            }
        }
    }

    deinit {
        for source in sources { close(source.descriptor) }
    }

    /// The descriptors to include in a poll(2) set.
    package var descriptors: [Int32] { sources.map(\.descriptor) }

    /// How changes are followed, for `bgctl status`: `rtnetlink, power-supply uevents`.
    package var summary: String { sources.map(\.name).joined(separator: ", ") }

    /// Reads what is waiting on `descriptor` (the socket or instance is non-blocking).
    /// - Returns: Whether it may have changed a condition: any route or link message, a
    ///   uevent of the `power_supply` subsystem, any change in the tree, or lost messages
    ///   (ENOBUFS: the socket overflowed, so anything may have changed).
    package func drain(_ descriptor: Int32) -> Bool {
        guard let source = sources.first(where: { $0.descriptor == descriptor }) else { return false }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var relevant = false
        while true {
            // read(2), not recv(2): one of them is an inotify instance, not a socket.
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ENOBUFS { relevant = true }
                break
            }
            if count == 0 { break }
            switch source {
            case .routes, .powerTree: relevant = true
            case .powerUevents:
                relevant = relevant || Self.isPowerSupplyUevent(buffer[..<count])
            }
        }
        if relevant, case .powerTree = source { watchTree() }
        return relevant
    }

    /// A uevent is `ACTION@DEVPATH` then `KEY=VALUE` fields, each ended by NUL.
    package static func isPowerSupplyUevent(_ message: ArraySlice<UInt8>) -> Bool {
        message.split(separator: 0).contains { Array($0) == Array("SUBSYSTEM=power_supply".utf8) }
    }

    /// Watches the tree's directory and each supply in it; a supply added later is watched
    /// once its directory's creation is seen (re-adding a watch only updates its mask).
    private func watchTree() {
        guard
            case .powerTree(let inotify, let directory)? = sources.last(where: {
                if case .powerTree = $0 { true } else { false }
            })
        else { return }
        _ = inotify_add_watch(inotify, directory, Self.treeMask)
        if case .success(let entries) = KernelFile.entries(directory) {
            for entry in entries { _ = inotify_add_watch(inotify, directory + "/" + entry, Self.treeMask) }
        }
    }

    /// Whether this process is in the initial user namespace: its uid map is the identity over
    /// every uid.
    private static var inInitialUserNamespace: Bool {
        guard case .success(let map) = KernelFile.read("/proc/self/uid_map") else { return true }
        return map.split(whereSeparator: \.isWhitespace) == ["0", "0", "4294967295"]
    }

    /// Whether `path` is the kernel's: sysfs is mounted at /sys, and its attributes change
    /// without inotify events.
    private static func isSysfs(_ path: String) -> Bool {
        guard let resolved = realpath(path, nil) else { return path.hasPrefix("/sys/") }
        defer { free(resolved) }
        return String(cString: resolved).hasPrefix("/sys/")
    }

    /// A non-blocking netlink socket of `family`, bound to `groups`.
    private static func netlinkSocket(_ family: Int32, groups: UInt32) -> Result<Int32, NetlinkFailure> {
        let descriptor = socket(
            AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), family)
        guard descriptor >= 0 else { return .failure(NetlinkFailure(call: "socket", code: errno)) }
        // struct sockaddr_nl: family, padding, port id (0: the kernel assigns), groups.
        var address = [UInt8](repeating: 0, count: 12)
        address.withUnsafeMutableBytes {
            $0.storeBytes(of: sa_family_t(AF_NETLINK), toByteOffset: 0, as: sa_family_t.self)
            $0.storeBytes(of: groups, toByteOffset: 8, as: UInt32.self)
        }
        let bound = address.withUnsafeBytes {
            bind(descriptor, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
        }
        guard bound == 0 else {
            let failure = NetlinkFailure(call: "bind", code: errno)
            close(descriptor)
            return .failure(failure)
        }
        return .success(descriptor)
    }

    /// Why a netlink socket could not be opened.
    private struct NetlinkFailure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call): \(String(cString: strerror(code)))" }
    }
}
