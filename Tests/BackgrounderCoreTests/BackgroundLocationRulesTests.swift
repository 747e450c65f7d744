import BackgrounderCore
import Testing

@Suite("Background location rules", .timeLimit(.minutes(5)))
struct BackgroundLocationRulesTests {
    private func manifest(_ modes: Set<BackgroundMode>, always: Bool = true) -> AppManifest {
        AppManifest(
            bundleIdentifier: "org.example.hike", name: "Hike", executable: "Hike", backgroundModes: modes,
            usageDescriptions: UsageDescriptions(
                locationAlwaysAndWhenInUse: always ? "Records walks." : nil, locationWhenInUse: "Shows where you are."))
    }

    private let recorder = LocationSubscription(
        standard: StandardUpdateFilter.Configuration(), allowsBackgroundUpdates: true)

    private func standard(
        _ state: ApplicationState, modes: Set<BackgroundMode> = [.location], grant: LocationAuthorization = .always,
        subscription: LocationSubscription? = nil, deferralDue: Bool = false
    ) -> LocationRouting.Decision {
        LocationRouting.decide(
            .standard, manifest: manifest(modes), authorization: grant, subscription: subscription ?? recorder,
            state: state, deferralDue: deferralDue)
    }

    private func isDrop(_ decision: LocationRouting.Decision) -> Bool {
        if case .drop = decision { return true }
        return false
    }

    @Test("the foreground app gets every update, whatever it declared")
    func foregroundGetsEverything() {
        for grant in [LocationAuthorization.whenInUse, .always] {
            #expect(standard(.active, modes: [], grant: grant) == .deliver)
            #expect(standard(.inactive, modes: [], grant: grant) == .deliver)
        }
    }

    @Test("nothing without a grant")
    func nothingWithoutGrant() {
        for grant in [LocationAuthorization.notDetermined, .denied] {
            #expect(isDrop(standard(.active, grant: grant)))
            #expect(isDrop(standard(.background, grant: grant)))
        }
    }

    @Test("background updates need the mode, always, and allowsBackgroundLocationUpdates")
    func backgroundNeedsAllThree() {
        #expect(standard(.background) == .deliver)
        #expect(isDrop(standard(.background, modes: [])))
        #expect(isDrop(standard(.background, grant: .whenInUse)))
        #expect(isDrop(standard(.background, subscription: LocationSubscription(standard: .init()))))
    }

    @Test("a suspended or killed recorder's fixes queue; its deferral wakes it")
    func queuedWhileSuspended() {
        #expect(standard(.suspended) == .queue)
        #expect(standard(.suspended, deferralDue: true) == .queueAndWake)
        #expect(standard(.notRunning) == .queue)
        #expect(isDrop(standard(.suspended, grant: .whenInUse)))
    }

    @Test("significant changes and regions wake or relaunch with always, even without the mode")
    func eventsRelaunch() {
        for source in [LocationRouting.Source.significantChange, .region] {
            func decide(_ state: ApplicationState, _ grant: LocationAuthorization) -> LocationRouting.Decision {
                LocationRouting.decide(
                    source, manifest: manifest([]), authorization: grant,
                    subscription: LocationSubscription(significantChanges: true), state: state)
            }
            #expect(decide(.notRunning, .always) == .queueAndLaunch)
            #expect(decide(.suspended, .always) == .queueAndWake)
            #expect(decide(.background, .always) == .deliver)
            #expect(decide(.active, .whenInUse) == .deliver)
            #expect(isDrop(decide(.notRunning, .whenInUse)))
            #expect(isDrop(decide(.suspended, .whenInUse)))
        }
    }

    @Test("the location assertion: background updates without a deferral")
    func assertion() {
        let app = manifest([.location])
        #expect(LocationRouting.holdsAssertion(manifest: app, authorization: .always, subscription: recorder))
        var deferred = recorder
        deferred.deferral = LocationDeferral(distance: 250, timeout: 120)
        #expect(!LocationRouting.holdsAssertion(manifest: app, authorization: .always, subscription: deferred))
        #expect(!LocationRouting.holdsAssertion(manifest: app, authorization: .whenInUse, subscription: recorder))
        #expect(!LocationRouting.holdsAssertion(manifest: manifest([]), authorization: .always, subscription: recorder))
    }

    @Test("a deferral is due after its distance or its time, measured on fix times")
    func deferral() {
        let start = Location(
            coordinate: Coordinate(latitude: 46, longitude: 14), timestamp: 1000, fixMode: .threeDimensional)
        func at(metresNorth: Double, seconds: Double) -> Location {
            Location(
                coordinate: Coordinate(latitude: 46 + metresNorth / 111_195, longitude: 14), timestamp: 1000 + seconds,
                fixMode: .threeDimensional)
        }
        let deferral = LocationDeferral(distance: 250, timeout: 120)
        #expect(!deferral.isDue(first: start, latest: at(metresNorth: 200, seconds: 100)))
        #expect(deferral.isDue(first: start, latest: at(metresNorth: 260, seconds: 100)))
        #expect(deferral.isDue(first: start, latest: at(metresNorth: 10, seconds: 120)))
        #expect(!LocationDeferral().isDue(first: start, latest: at(metresNorth: 5000, seconds: 5000)))
    }

    @Test("asking for a grant needs the matching usage description")
    func usageDescriptions() {
        #expect(manifest([], always: false).missingLocationUsageDescription(for: .always) != nil)
        #expect(manifest([], always: false).missingLocationUsageDescription(for: .whenInUse) == nil)
        #expect(manifest([]).missingLocationUsageDescription(for: .always) == nil)
        let bare = AppManifest(bundleIdentifier: "org.example.bare", name: "Bare", executable: "Bare")
        #expect(
            bare.missingLocationUsageDescription(for: .whenInUse)?.contains("NSLocationWhenInUseUsageDescription")
                == true)
        #expect(LocationAuthorization(grant: "when-in-use") == .whenInUse)
        #expect(LocationAuthorization(grant: "sometimes") == nil)
    }
}
