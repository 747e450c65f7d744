import BackgrounderCore
import Testing

/// ``FixDispatch``: what each app gets for one fix, before anything is stored or sent.
@Suite("Fix dispatch", .timeLimit(.minutes(5)))
struct FixDispatchTests {
    private func manifest(_ id: BundleID, modes: Set<BackgroundMode> = [.location]) -> AppManifest {
        AppManifest(
            bundleIdentifier: id, name: id.rawValue, executable: id.rawValue, backgroundModes: modes,
            usageDescriptions: UsageDescriptions(
                locationAlwaysAndWhenInUse: "Records walks.", locationWhenInUse: "Shows where you are."))
    }

    private let recorder = LocationSubscription(
        standard: StandardUpdateFilter.Configuration(), allowsBackgroundUpdates: true)

    @Test("one event per app and fix; significant changes relaunch, standard updates queue for a suspended app")
    func routesEachListener() {
        var listeners: [BundleID: LocationListener] = [
            "hike": LocationListener(recorder),
            "alerts": LocationListener(LocationSubscription(significantChanges: true)),
            "gone": LocationListener(recorder),
        ]
        let states: [BundleID: ApplicationState] = ["hike": .suspended, "alerts": .notRunning]
        let dispatch = FixDispatch(
            fix(Geo.ljubljana, at: 1_000), transitions: [], listeners: &listeners
        ) { owner in
            // "gone" is no longer loaded: the core knows nothing of it.
            states[owner].map {
                FixDispatch.Recipient(manifest: manifest(owner), authorization: .always, state: $0)
            }
        }
        #expect(dispatch.events.map(\.owner).sorted() == ["alerts", "hike"])
        #expect(dispatch.events.allSatisfy { $0.kind == .location })
        #expect(dispatch.decisions == ["hike": .queue, "alerts": .queueAndLaunch])
        #expect(dispatch.significantChanges == ["alerts"])
    }

    @Test("a listener's filter advances: within its distance filter, the next fix routes nothing")
    func filtersAdvance() {
        let every50m = LocationSubscription(
            standard: StandardUpdateFilter.Configuration(distanceFilter: 50), allowsBackgroundUpdates: true)
        var listeners: [BundleID: LocationListener] = ["hike": LocationListener(every50m)]
        let recipient = { (owner: BundleID) in
            FixDispatch.Recipient(manifest: self.manifest(owner), authorization: .always, state: .background)
        }
        let first = fix(Geo.ljubljana, at: 1_000)
        let once = FixDispatch(first, transitions: [], listeners: &listeners, recipient: recipient)
        #expect(once.decisions == ["hike": .deliver])
        let near = fix(Geo.offset(Geo.ljubljana, east: 10), at: 1_001)
        let again = FixDispatch(near, transitions: [], listeners: &listeners, recipient: recipient)
        #expect(again.events.isEmpty)
        let far = fix(Geo.offset(Geo.ljubljana, east: 80), at: 1_002)
        #expect(FixDispatch(far, transitions: [], listeners: &listeners, recipient: recipient).events.count == 1)
    }

    @Test("without a grant nothing is routed, and the strongest decision wins for an app with several events")
    func grantsAndStrength() {
        var listeners: [BundleID: LocationListener] = ["hike": LocationListener(recorder)]
        let denied = FixDispatch(
            fix(Geo.ljubljana, at: 1_000), transitions: [], listeners: &listeners
        ) { FixDispatch.Recipient(manifest: manifest($0), authorization: .denied, state: .background) }
        #expect(denied.events.isEmpty && denied.decisions.isEmpty)

        let region = CircularRegion(
            identifier: "home", center: Geo.ljubljana, radius: 100)
        let entry = RegionTransition(
            owner: .app("hike"), region: region, from: .outside, to: .inside,
            location: fix(Geo.ljubljana, at: 2_000), qualifiedAt: 2_000)
        var fresh: [BundleID: LocationListener] = ["hike": LocationListener(recorder)]
        let both = FixDispatch(
            fix(Geo.ljubljana, at: 2_000), transitions: [entry], listeners: &fresh
        ) { FixDispatch.Recipient(manifest: manifest($0), authorization: .always, state: .suspended) }
        #expect(both.events.map(\.kind) == [.enter, .location])
        #expect(
            both.decisions == ["hike": .queueAndWake], "a region entry wakes; the standard update alone would queue")
    }

    @Test("a notification request's region crossing reaches no app: it posts the notification instead")
    func notificationRegions() {
        let region = CircularRegion(identifier: "summit", center: Geo.ljubljana, radius: 100)
        let crossing = { (owner: RegionOwner) in
            RegionTransition(
                owner: owner, region: region, from: .outside, to: .inside,
                location: fix(Geo.ljubljana, at: 2_000), qualifiedAt: 2_000)
        }
        var listeners: [BundleID: LocationListener] = [:]
        let dispatch = { (owner: RegionOwner) in
            FixDispatch(fix(Geo.ljubljana, at: 2_000), transitions: [crossing(owner)], listeners: &listeners) {
                FixDispatch.Recipient(manifest: manifest($0), authorization: .always, state: .suspended)
            }
        }
        #expect(dispatch(.notification("hike")).events.isEmpty)
        #expect(dispatch(.app("hike")).events.map(\.owner) == ["hike"], "the control: the app's own region")
    }

    @Test(
        "a region's owner is kept in the store as the bundle, or notification: and the bundle",
        arguments: [
            (RegionOwner.app("org.example.hike"), "org.example.hike"),
            (.notification("org.example.hike"), "notification:org.example.hike"),
        ])
    func storedOwner(_ owner: RegionOwner, _ stored: String) {
        #expect(owner.stored == stored)
        #expect(RegionOwner(stored: stored) == owner)
        #expect(owner.bundle == "org.example.hike")
    }
}
