import BackgrounderCore
import BackgrounderProtocol
package import Foundation
package import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's one owner of D-Bus: every connection (the session bus, one more per MPRIS
/// player, the system bus for logind) lives on this service's thread, which sleeps in
/// `poll(2)` on all of them, as the gpsd and PulseAudio bindings own theirs
/// (docs/decisions/0011-d-bus-binding.md).
///
/// Others hand it work with ``perform(_:)``; what arrives from the bus is handed to actors
/// by the endpoints' own callbacks. A bus that is absent or goes away is retried a few times
/// over half a minute, then when its socket file is created (``SocketAppearance``), so an
/// absent bus costs no wakeup; each endpoint sets itself up again on the new connection, as a
/// restarted dbus-daemon needs.
package final class DesktopBus: Service, Sendable {
    private let jobs = Locked<[@Sendable (BusLoop) -> Void]>([])
    /// Woken for each job; drained by the thread.
    private let jobSignal: WakeupPipe
    private let shutdown: WakeupPipe
    private let statusBox = Locked<[String: EndpointStatus]>([:])
    private let noteBox = Locked<[DesktopPart: String]>([:])
    private let environment: [String: String]
    /// Which app, if any, a process belongs to (the supervisor's answer), for peers whose
    /// calls act for the person.
    package let identify: @Sendable (PeerProcess) -> ProcessOwner
    package let logger: Logger

    /// When to connect again after a bus was absent or went away: 1, 2, 4, 8 and 16 s, then
    /// when its socket appears (or every 30 s for a bus with no socket file to watch).
    static let retries = RetrySchedule(first: .seconds(1), limit: .seconds(30))

    package init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        identify: @escaping @Sendable (PeerProcess) -> ProcessOwner, logger: Logger
    ) throws {
        jobSignal = try WakeupPipe()
        shutdown = try WakeupPipe()
        self.environment = environment
        self.identify = identify
        self.logger = logger
    }

    /// Runs `job` on the bus thread, soon.
    package func perform(_ job: @escaping @Sendable (BusLoop) -> Void) {
        jobs.withLock { $0.append(job) }
        jobSignal.wake()
    }

    /// Adds an endpoint: connected now (or when its bus appears), set up on every new
    /// connection, and told when its connection is lost.
    package func add(_ endpoint: BusEndpoint) {
        perform { $0.add(endpoint) }
    }

    /// Whether a bus is turned off by an empty address variable.
    package func isDisabled(_ kind: BusKind) -> Bool { BusKind.isDisabled(kind, environment: environment) }

    /// What `bgctl status` shows, by endpoint name.
    package var statuses: [String: EndpointStatus] { statusBox.withLock { $0 } }

    package func setStatus(_ name: String, _ status: EndpointStatus?) {
        statusBox.withLock { $0[name] = status }
    }

    /// What each desktop part last found.
    package var notes: [DesktopPart: String] { noteBox.withLock { $0 } }

    /// Records what a desktop part found (a server, a session, a distributor, or none).
    package func setNote(_ part: DesktopPart, _ text: String) {
        noteBox.withLock { $0[part] = text }
    }

    /// A variable of the daemon's environment.
    package func environmentValue(_ name: String) -> String? { environment[name] }

    package func run() async throws {
        await shutdown.runThreadUntilShutdown(named: "d-bus") { [self] in
            let loop = BusLoop(owner: self)
            while !shutdown.isWoken {
                runJobs(loop)
                loop.step()
                wait(loop)
            }
            loop.closeAll()
            // Jobs still queued find no connection and fail, so no caller waits for ever.
            runJobs(loop)
        }
    }

    private func runJobs(_ loop: BusLoop) {
        var drain = [UInt8](repeating: 0, count: 256)
        while read(jobSignal.readDescriptor, &drain, drain.count) > 0 {}
        let pending = jobs.withLock { jobs in
            defer { jobs = [] }
            return jobs
        }
        for job in pending { job(loop) }
    }

    private func wait(_ loop: BusLoop) {
        var descriptors = [
            pollfd(fd: shutdown.readDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: jobSignal.readDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        descriptors += loop.pollDescriptors
        let timeout = loop.nextDeadline.map { deadline -> Int32 in
            let now = ContinuousClock.now
            return deadline <= now ? 0 : Int32(min((deadline - now).wholeMicroseconds / 1000 + 1, 60_000))
        }
        _ = poll(&descriptors, nfds_t(descriptors.count), timeout ?? -1)
    }
}

/// How one endpoint is doing, for `bgctl status`.
package struct EndpointStatus: Sendable, Hashable {
    package var bus: BusKind
    package var connected: Bool
    package var detail: String
}

/// Something the daemon serves or uses on a bus, over a connection of its own: the session
/// endpoint (notifications, UnifiedPush), one MPRIS player, logind's watcher.
package final class BusEndpoint: Sendable {
    /// Unique among endpoints; also the sd-bus description.
    package let name: String
    package let kind: BusKind
    /// Called on the bus thread with each new connection: take names, add objects and
    /// matches. A throw closes the connection and is retried later.
    package let setUp: @Sendable (BusConnection) throws(DBusError) -> Void
    /// Called on the bus thread when the connection is lost or closed.
    package let lost: @Sendable () -> Void

    package init(
        name: String, kind: BusKind, setUp: @escaping @Sendable (BusConnection) throws(DBusError) -> Void,
        lost: @escaping @Sendable () -> Void = {}
    ) {
        self.name = name
        self.kind = kind
        self.setUp = setUp
        self.lost = lost
    }
}

/// The bus thread's own state: the endpoints and their connections. Never leaves the thread.
package final class BusLoop {
    private unowned let owner: DesktopBus
    private var endpoints: [String: BusEndpoint] = [:]
    private var connections: [String: BusConnection] = [:]
    private var retryAt: [String: ContinuousClock.Instant] = [:]
    private var schedules: [String: RetrySchedule] = [:]
    /// The endpoints that failed, by the socket whose creation is their next attempt.
    private var awaitingSocket: [String: String] = [:]
    private let appearance = SocketAppearance()

    package init(owner: DesktopBus) {
        self.owner = owner
    }

    /// The live connection of an endpoint.
    package func connection(_ name: String) -> BusConnection? { connections[name] }

    package func add(_ endpoint: BusEndpoint) {
        remove(endpoint.name)
        endpoints[endpoint.name] = endpoint
        retryAt[endpoint.name] = .now
    }

    package func remove(_ name: String) {
        drop(name, reason: nil)
        endpoints[name] = nil
        retryAt[name] = nil
        schedules[name] = nil
        stopAwaitingSocket(name)
        owner.setStatus(name, nil)
    }

    package func closeAll() {
        for name in Array(connections.keys) { drop(name, reason: nil) }
    }

    /// Connects what is due, and handles what arrived on every connection.
    package func step() {
        for path in awaitingSocket.isEmpty ? [] : appearance?.drain() ?? [] {
            for (name, awaited) in awaitingSocket where awaited == path {
                owner.logger.debug("D-Bus: \(path) appeared; connecting \(name)")
                schedules[name]?.reset()
                retryAt[name] = .now
            }
        }
        let now = ContinuousClock.now
        for (name, due) in retryAt where due <= now {
            guard let endpoint = endpoints[name] else { continue }
            connect(endpoint)
        }
        for (name, connection) in connections {
            do throws(DBusError) {
                try connection.process()
            } catch {
                owner.logger.warning("D-Bus: \(name) lost its \(connection.kind.rawValue) bus: \(error)")
                drop(name, reason: error.description)
            }
        }
    }

    private func connect(_ endpoint: BusEndpoint) {
        retryAt[endpoint.name] = nil
        if owner.isDisabled(endpoint.kind) {
            owner.setStatus(
                endpoint.name,
                EndpointStatus(
                    bus: endpoint.kind, connected: false, detail: "\(endpoint.kind.addressVariable) is empty"))
            return
        }
        do throws(DBusError) {
            let connection = try BusConnection(kind: endpoint.kind, description: endpoint.name)
            try endpoint.setUp(connection)
            connections[endpoint.name] = connection
            schedules[endpoint.name] = nil
            stopAwaitingSocket(endpoint.name)
            owner.setStatus(endpoint.name, EndpointStatus(bus: endpoint.kind, connected: true, detail: "connected"))
            owner.logger.info("D-Bus: \(endpoint.name) is on the \(endpoint.kind.rawValue) bus")
        } catch {
            scheduleRetry(endpoint.name, kind: endpoint.kind, reason: error.description)
        }
    }

    /// Sets the next attempt after a failure: on the schedule, and when the bus's socket
    /// file is created.
    private func scheduleRetry(_ name: String, kind: BusKind, reason: String) {
        // Without an address or a runtime directory nothing can make a session bus appear
        // for this process (its environment does not change): trying again is a wakeup for
        // nothing, every 30 s for the daemon's life.
        if kind == .session, owner.environmentValue(kind.addressVariable)?.isEmpty != false,
            owner.environmentValue("XDG_RUNTIME_DIR")?.isEmpty != false
        {
            stopAwaitingSocket(name)
            schedules[name] = nil
            retryAt[name] = nil
            let detail = "\(reason); not tried again until the daemon is started with one"
            owner.setStatus(name, EndpointStatus(bus: kind, connected: false, detail: detail))
            owner.logger.info("D-Bus: \(name): \(detail)")
            return
        }
        let path = ServerSocketPath.dbus(
            address: owner.environmentValue(kind.addressVariable), system: kind == .system,
            runtimeDirectory: owner.environmentValue("XDG_RUNTIME_DIR"))
        let watched = path.map { path in
            awaitingSocket[name] = path
            return appearance?.watch(path) ?? false
        }
        if watched != true { stopAwaitingSocket(name) }
        // A socket that is there but refuses (or an endpoint whose setUp failed on a bus that
        // is up) is created by nothing: it is retried on the timer, and sooner if it appears.
        let absent = watched == true && path.map { !SocketAppearance.exists($0) } == true
        var schedule = schedules[name] ?? DesktopBus.retries
        let wait = schedule.next(socketWatched: absent)
        schedules[name] = schedule
        retryAt[name] = wait.map { .now + $0 }
        let next = wait.map { "trying again in \($0)" } ?? "waiting for \(path ?? "its socket") to appear"
        owner.setStatus(name, EndpointStatus(bus: kind, connected: false, detail: "\(reason); \(next)"))
        owner.logger.debug("D-Bus: \(name): \(reason); \(next)")
    }

    private func stopAwaitingSocket(_ name: String) {
        guard let path = awaitingSocket.removeValue(forKey: name) else { return }
        if !awaitingSocket.values.contains(path) { appearance?.unwatch(path) }
    }

    private func drop(_ name: String, reason: String?) {
        guard let connection = connections.removeValue(forKey: name) else { return }
        connection.close()
        endpoints[name]?.lost()
        if let reason, let endpoint = endpoints[name] {
            scheduleRetry(name, kind: endpoint.kind, reason: reason)
        }
    }

    package var pollDescriptors: [pollfd] {
        connections.values.map(\.pollDescriptor)
            + (appearance.map { [pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0)] } ?? [])
    }

    /// The earliest of the connections' timeouts and the retries.
    package var nextDeadline: ContinuousClock.Instant? {
        var earliest = retryAt.values.min()
        if !connections.isEmpty {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
            for deadline in connections.values.compactMap(\.deadline) {
                let instant = ContinuousClock.now + .microseconds(Int64(deadline &- min(deadline, nowMicroseconds)))
                earliest = min(earliest ?? instant, instant)
            }
        }
        return earliest
    }
}
