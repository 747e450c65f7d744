import BackgrounderAppCore
import BackgrounderCore
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderSystem
import BackgrounderTestSupport
import Foundation
import Logging
import Testing

/// The notification capability's rules against an embedded core, a manual wall clock and a
/// presenter that records what it was asked to show.
@Suite("The notification capability on an embedded core")
@AppCoreActor
final class NotificationCapabilityTests {
    /// Shows nothing; says what it was given, in order.
    final class RecordingPresenter: NotificationPresenter {
        let name = "recording"
        let shown: AsyncStream<String>
        private let sink: AsyncStream<String>.Continuation

        init() { (shown, sink) = AsyncStream.makeStream() }

        func present(bundle: BundleID, appName: String, notification: DeliveredNotification)
            async throws(NotificationPresenterError) -> String
        {
            sink.yield("\(bundle)/\(notification.request.identifier)")
            return "handle-\(notification.request.identifier)"
        }

        func withdraw(_ handle: String) async {}
    }

    /// Watches nothing; says which requests it was asked to watch and to stop watching.
    final class RecordingRegions: NotificationRegionWatching {
        var watched: [String] = []
        var stopped: [String] = []

        func monitorForNotification(
            _ bundle: BundleID, request: String, _ region: CircularRegion, in apps: any AppCore
        ) throws(ProtocolError) {
            watched.append(request)
        }

        func stopMonitoringForNotifications(_ bundle: BundleID, requests: [String]) { stopped += requests }
    }

    let directory: TemporaryDirectory
    let core = EmbeddedAppCore()
    let presenter = RecordingPresenter()
    let notifications: NotificationCapability
    let wallClock = Locked(Date(timeIntervalSince1970: 1_800_000_000))

    static let reminders: BundleID = "org.example.reminders"

    init() throws {
        directory = try TemporaryDirectory(prefix: "notification-unit")
        let store = try StateStore(directory: directory.appending("state"), synchronous: .normal)
        var logger = Logger(label: "notification-unit")
        logger.logLevel = .critical
        let wallClock = self.wallClock
        notifications = NotificationCapability(
            store: store, presenter: presenter, logger: logger, clock: { wallClock.withLock { $0 } },
            timeZone: { TimeZone(identifier: "UTC")! })
        core.capabilities = [notifications]
        core.add(
            AppManifest(bundleIdentifier: Self.reminders, name: "Reminders", executable: "Reminders"),
            state: .suspended)
    }

    deinit {
        directory.remove()
    }

    func grant() throws {
        _ = try notifications.authorize(
            Authorize(bundle: Self.reminders, grant: .notifications(.granted)), in: core)
    }

    static func request(_ identifier: String, _ trigger: NotificationTrigger?) -> NotificationRequest {
        NotificationRequest(identifier: identifier, content: NotificationContent(title: "Water"), trigger: trigger)
    }

    @Test("an app without a grant asks a person and may add nothing")
    func withoutAGrant() throws {
        let status = notifications.requestAuthorization(
            Self.reminders, NotificationAuthorizationRequest(options: ["alert"]), in: core)
        #expect(status.status == .notDetermined)
        #expect(core.asks == [.askPerson(Self.reminders, .notifications, asks: "granted")])
        let error = #expect(throws: ProtocolError.self) {
            try notifications.add(Self.reminders, Self.request("a", nil), in: core)
        }
        #expect(error?.code == .notAuthorized)
    }

    /// Moves the core's clock and the capability's wall clock on together.
    func pass(_ seconds: Int) {
        wallClock.withLock { $0 += Double(seconds) }
        core.advance(by: .seconds(seconds))
    }

    @Test("a time-interval notification waits for its time on the core's timer, then is shown; the app is not woken")
    func firesAtItsTime() async throws {
        core.wallClock = wallClock.withLock { $0 }
        try grant()
        _ = try notifications.add(
            Self.reminders, Self.request("water", .timeInterval(seconds: 60, repeats: false)), in: core)
        #expect(core.deadline(of: notifications) == .seconds(60))
        pass(59)
        #expect(notifications.list(Self.reminders).pending.map(\.request.identifier) == ["water"])

        pass(1)
        #expect(core.deadline(of: notifications) == nil, "nothing left to fire")
        var shown = presenter.shown.makeAsyncIterator()
        #expect(await shown.next() == "\(Self.reminders)/water")
        #expect(notifications.list(Self.reminders).pending.isEmpty)
        #expect(notifications.list(Self.reminders).delivered.map(\.request.identifier) == ["water"])
        #expect(core.asks.allSatisfy { if case .wake = $0 { false } else { true } })
    }

    @Test("a location trigger is watched through location, and stops being watched when removed")
    func locationTriggers() throws {
        let regions = RecordingRegions()
        try grant()
        let region = CircularRegion(identifier: "x", center: Coordinate(latitude: 46.5, longitude: 7.9), radius: 100)
        let located = Self.request("summit", .location(region, repeats: false))

        // No location in this daemon: refused, not kept.
        let error = #expect(throws: ProtocolError.self) { try notifications.add(Self.reminders, located, in: core) }
        #expect(error?.code == .unavailable)

        notifications.regions = regions
        _ = try notifications.add(Self.reminders, located, in: core)
        #expect(regions.watched == ["summit"])
        _ = try notifications.remove(
            Self.reminders, NotificationRemoval(list: .pending, identifiers: ["summit"]), in: core)
        #expect(regions.stopped == ["summit"])
    }
}

extension NotificationCapabilityTests {
    @Test("bgctl status counts notifications scheduled and delivered")
    func status() async throws {
        core.wallClock = wallClock.withLock { $0 }
        try grant()
        _ = try notifications.add(
            Self.reminders, Self.request("water", .timeInterval(seconds: 60, repeats: false)), in: core)
        let waiting = notifications.status(in: core)
        #expect(waiting.name == "notifications")
        #expect(waiting.counts == ["pending": 1, "delivered": 0, "waitingForApp": 0])

        pass(60)
        var shown = presenter.shown.makeAsyncIterator()
        #expect(await shown.next() == "\(Self.reminders)/water")
        let fired = notifications.status(in: core)
        #expect(fired.counts == ["pending": 0, "delivered": 1, "waitingForApp": 0])
        #expect(fired.summary == "0 scheduled, 1 delivered, 0 waiting for the app in front")
    }
}
