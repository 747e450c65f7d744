import BackgrounderAppCore
import BackgrounderCore
import BackgrounderLocation
import BackgrounderProtocol
import BackgrounderSystem
import BackgrounderTestSupport
import Logging
import Testing

/// The location capability's rules against an embedded core: no process, no gpsd, a real
/// store in a temporary directory; each test runs in milliseconds.
@Suite("The location capability on an embedded core")
@AppCoreActor
final class LocationCapabilityTests {
    let directory: TemporaryDirectory
    let store: StateStore
    let core = EmbeddedAppCore()
    let location: LocationCapability

    static let recorder: BundleID = "org.example.recorder"

    init() throws {
        directory = try TemporaryDirectory(prefix: "location-unit")
        store = try StateStore(directory: directory.appending("state"), synchronous: .normal)
        var logger = Logger(label: "location-unit")
        logger.logLevel = .critical
        location = LocationCapability(store: store, logger: logger)
        core.capabilities = [location]
    }

    deinit {
        directory.remove()
    }

    /// A recorder declaring the `location` mode and both usage strings.
    static func recorderManifest(usage: Bool = true) -> AppManifest {
        AppManifest(
            bundleIdentifier: recorder, name: "Recorder", executable: "Recorder", backgroundModes: [.location],
            usageDescriptions: usage
                ? UsageDescriptions(locationAlwaysAndWhenInUse: "Records your hike.", locationWhenInUse: "Shows you.")
                : UsageDescriptions())
    }

    static func fix(latitude: Double, longitude: Double, at time: Double) -> Location {
        Location(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), horizontalAccuracy: 5, timestamp: time,
            fixMode: .threeDimensional)
    }

    func grant(_ level: LocationAuthorization) throws {
        _ = try location.authorize(Authorize(bundle: Self.recorder, grant: .location(level)), in: core)
    }

    @Test("asking for always leaves a question for a person and grants nothing; without the usage string it is refused")
    func authorizationAsksAPerson() throws {
        core.add(Self.recorderManifest(), state: .active)
        let status = try location.requestAuthorization(Self.recorder, level: .always, in: core)
        #expect(status.location == .notDetermined)
        #expect(core.asks == [.askPerson(Self.recorder, .location, asks: "always")])

        core.add(Self.recorderManifest(usage: false), state: .active)
        #expect(throws: ProtocolError.self) {
            try location.requestAuthorization(Self.recorder, level: .always, in: core)
        }
    }

    @Test("without a grant a subscription is refused, and a fix reaches no one")
    func noGrantNoFixes() throws {
        core.add(Self.recorderManifest(), state: .background)
        let subscription = LocationSubscription(standard: .init(), allowsBackgroundUpdates: true)
        let error = #expect(throws: ProtocolError.self) {
            try location.setSubscription(Self.recorder, subscription, in: core)
        }
        #expect(error?.code == .notAuthorized)
        location.fix(Self.fix(latitude: 46.5, longitude: 7.9, at: 1_000), in: core)
        #expect(core.notices(to: Self.recorder).isEmpty)
        #expect(try store.queuedEvents(for: Self.recorder, after: 0, limit: 10).isEmpty)
    }

    @Test("a suspended recorder deferring its updates gets its fixes queued, then is woken once it has travelled")
    func suspendedRecorderIsWoken() throws {
        core.add(Self.recorderManifest(), state: .background)
        try grant(.always)
        // allowDeferredLocationUpdates(untilTraveled: 100): no assertion, so it may be suspended.
        let subscription = LocationSubscription(
            standard: .init(), allowsBackgroundUpdates: true, deferral: LocationDeferral(distance: 100))
        _ = try location.setSubscription(Self.recorder, subscription, in: core)
        _ = location.ready(Self.recorder, in: core)
        core.apps[Self.recorder]?.state = .suspended

        location.fix(Self.fix(latitude: 46.5, longitude: 7.9, at: 1_000), in: core)
        #expect(!core.asks.contains(.wake(Self.recorder, because: "location")))
        #expect(try store.queuedEvents(for: Self.recorder, after: 0, limit: 10).count == 1)

        // About 220 m north: past the deferral's distance.
        location.fix(Self.fix(latitude: 46.502, longitude: 7.9, at: 1_030), in: core)
        #expect(core.asks.contains(.wake(Self.recorder, because: "location")))
        #expect(core.asks.contains(.openWindow(Self.recorder, .location)))
        let delivered = core.notices(to: Self.recorder).compactMap { body -> LocationBatch? in
            if case .locations(let batch) = body { batch } else { nil }
        }
        #expect(delivered.flatMap(\.events).map(\.location.coordinate.latitude) == [46.5, 46.502])
    }

    @Test(
        "a running recorder is sent each fix as it is stored; one queued while it could not hear goes with the next, none twice or out of order"
    )
    func fixesGoAsTheyAreStored() throws {
        core.add(Self.recorderManifest(), state: .background)
        try grant(.always)
        _ = try location.setSubscription(
            Self.recorder, LocationSubscription(standard: .init(), allowsBackgroundUpdates: true), in: core)
        _ = location.ready(Self.recorder, in: core)
        func offer(_ index: Int) {
            location.fix(
                Self.fix(latitude: 46.5 + Double(index) / 1000, longitude: 7.9, at: 1_000 + Double(index) * 10),
                in: core)
        }
        offer(0)
        offer(1)
        // Frozen and thawed without the life cycle's word, so no flush on the thaw: the fix
        // queued meanwhile must go out with the next one, not be skipped by it.
        core.apps[Self.recorder]?.state = .suspended
        offer(2)
        core.apps[Self.recorder]?.state = .background
        offer(3)
        offer(4)

        let events = core.notices(to: Self.recorder).flatMap { body -> [LocationEvent] in
            if case .locations(let batch) = body { batch.events } else { [] }
        }
        #expect(events.map { Int(($0.location.coordinate.latitude - 46.5) * 1000 + 0.5) } == [0, 1, 2, 3, 4])
        // The seqs sent are the ones stored, so the app's acknowledgement forgets them.
        #expect(events.map(\.seq) == (try store.allQueuedEvents(for: Self.recorder).map(\.seq)))
        let last = try #require(events.last?.seq)
        let delivered = try #require(location.book.deliveries[Self.recorder]?.sentThrough)
        #expect(try store.acknowledge(Self.recorder, through: last, deliveredThrough: delivered) == 5)
    }

    @Test("a location trigger's region crossing goes to notifications, and never reaches the app")
    func notificationTriggerCrossing() throws {
        final class Crossings: NotificationRegionCrossing {
            var crossed: [String] = []
            func regionCrossed(_ bundle: BundleID, request: String, in apps: any AppCore) {
                crossed.append("\(bundle)/\(request)")
            }
        }
        let crossings = Crossings()
        location.notificationTriggers = crossings
        core.add(Self.recorderManifest(), state: .suspended)
        try grant(.whenInUse)
        let region = CircularRegion(identifier: "x", center: Coordinate(latitude: 46.5, longitude: 7.9), radius: 100)
        try location.monitorForNotification(Self.recorder, request: "summit", region, in: core)

        // Outside, agreed by two fixes; then inside for longer than the monitor's dwell.
        for time in stride(from: 1_000.0, through: 1_005, by: 5) {
            location.fix(Self.fix(latitude: 46.0, longitude: 7.0, at: time), in: core)
        }
        #expect(crossings.crossed.isEmpty)
        for time in stride(from: 1_010.0, through: 1_060, by: 5) {
            location.fix(Self.fix(latitude: 46.5, longitude: 7.9, at: time), in: core)
        }

        #expect(crossings.crossed == ["\(Self.recorder)/summit"])
        #expect(!core.asks.contains { if case .wake = $0 { true } else { false } })
        let heard = core.notices(to: Self.recorder).filter { if case .authorization = $0 { false } else { true } }
        #expect(heard.isEmpty, "the app heard \(heard)")
    }

    @Test("a changed identity drops the regions it monitored, its notifications' too")
    func identityChangeDropsRegions() throws {
        core.add(Self.recorderManifest(), state: .active)
        try grant(.always)
        let region = CircularRegion(identifier: "x", center: Coordinate(latitude: 46.5, longitude: 7.9), radius: 100)
        _ = try location.startMonitoring(Self.recorder, region, in: core)
        try location.monitorForNotification(Self.recorder, request: "summit", region, in: core)
        #expect(location.book.monitor.count == 2)
        location.identityChanged(Self.recorder, in: core)
        #expect(location.book.monitor.count == 0)
    }
}

extension LocationCapabilityTests {
    @Test("bgctl status counts the subscribers by kind and the regions, and says whether fixes come in")
    func status() throws {
        #expect(location.status(in: core).counts == ["standard": 0, "significantChange": 0, "regions": 0])
        core.add(Self.recorderManifest(), state: .active)
        try grant(.always)
        _ = try location.setSubscription(
            Self.recorder, LocationSubscription(allowsBackgroundUpdates: true, significantChanges: true), in: core)
        let region = CircularRegion(identifier: "x", center: Coordinate(latitude: 46.5, longitude: 7.9), radius: 100)
        _ = try location.startMonitoring(Self.recorder, region, in: core)
        try location.monitorForNotification(Self.recorder, request: "summit", region, in: core)

        let status = location.status(in: core)
        #expect(status.name == "location")
        #expect(status.counts == ["standard": 0, "significantChange": 1, "regions": 2])
        #expect(status.summary.contains("2 region(s) monitored for 1 app(s)"), "\(status.summary)")
        #expect(
            status.summary.hasSuffix("receiver watched for 1 app on significant changes, 2 regions monitored"),
            "\(status.summary)")
        location.serviceChanged(available: false, detail: "gpsd refused", in: core)
        #expect(location.status(in: core).summary.hasSuffix("but no fixes (gpsd refused)"))
    }
}
