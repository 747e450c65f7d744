import BackgrounderCore
import Foundation

/// Times the daemon's real per-fix write (one transaction queueing one fix, as
/// ``AppManager/locationFix(_:)`` does) for `bgbench store`, so the cost of `synchronous=FULL`
/// is measured on the same code path the daemon runs.
public enum QueueWriteProbe {
    /// Queues `count` fixes one transaction each in a fresh store under `directory`.
    /// - Returns: Each write's wall time in microseconds.
    /// - Throws: When the store cannot be opened or a write fails.
    public static func microsecondsPerFix(directory: String, synchronous: StoreSynchronous, count: Int) throws
        -> [Double]
    {
        let store = try StateStore(directory: directory, synchronous: synchronous)
        let clock = ContinuousClock()
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for index in 0..<count {
            let fix = Location(
                coordinate: Coordinate(latitude: 46.05 + Double(index) * 1e-5, longitude: 14.5),
                horizontalAccuracy: 4.9, timestamp: 1_750_000_000 + Double(index), fixMode: .threeDimensional)
            let event = StateStore.QueuedEvent(owner: "org.example.recorder", kind: .location, location: fix)
            let elapsed = try clock.measure { try store.enqueue([event]) }
            samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
        }
        return samples
    }
}
