import BackgrounderAppCore
import BackgrounderCore
import BackgrounderLocation
import BackgrounderProtocol
import Testing

/// Records what the capability tells the receiver.
final class RecordingReceiver: LocationReceiver {
    let demands = Locked<[ReceiverDemand]>([])
    func demandChanged(_ demand: ReceiverDemand) { demands.withLock { $0.append(demand) } }
    var last: ReceiverDemand? { demands.withLock { $0.last } }
    var count: Int { demands.withLock { $0.count } }
}

extension LocationCapabilityTests {
    @Test("the receiver is needed while an app subscribes or a region is monitored, and told only on a change")
    func receiverDemand() throws {
        let receiver = RecordingReceiver()
        location.attach(receiver)
        #expect(receiver.count == 1)
        #expect(receiver.last?.isNeeded == false)
        #expect(receiver.last?.reason == "no app needs fixes")

        core.add(Self.recorderManifest(), state: .active)
        try grant(.always)
        let standard = LocationSubscription(standard: .init(), allowsBackgroundUpdates: true)
        _ = try location.setSubscription(Self.recorder, standard, in: core)
        #expect(receiver.last?.isNeeded == true)
        #expect(receiver.last?.reason == "1 app on standard updates")

        // Fixes move the listener's filters, not the demand: nothing more is told.
        let told = receiver.count
        for second in 0..<5 {
            location.fix(
                Self.fix(latitude: 46.5, longitude: 7.9 + Double(second) * 0.001, at: 1_000 + Double(second)), in: core)
        }
        #expect(receiver.count == told)

        let region = CircularRegion(identifier: "hut", center: Coordinate(latitude: 46.5, longitude: 7.9), radius: 100)
        _ = try location.startMonitoring(Self.recorder, region, in: core)
        #expect(receiver.last?.reason == "1 app on standard updates, 1 region monitored")
        _ = try location.setSubscription(Self.recorder, LocationSubscription(), in: core)
        #expect(receiver.last?.isNeeded == true)
        #expect(receiver.last?.reason == "1 region monitored")
        _ = location.stopMonitoring(Self.recorder, region: "hut")
        #expect(receiver.last?.isNeeded == false)

        // A person's new install under the identifier drops what the old one asked for.
        _ = try location.setSubscription(Self.recorder, standard, in: core)
        #expect(receiver.last?.isNeeded == true)
        location.identityChanged(Self.recorder, in: core)
        #expect(receiver.last?.isNeeded == false)
        #expect(location.status(in: core).summary.hasSuffix("receiver not watched (no app needs fixes)"))
    }
}
