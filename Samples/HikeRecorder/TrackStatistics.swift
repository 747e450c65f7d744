import BackgroundKit
import Foundation

/// How far, how long and how much uphill a track went.
struct TrackStatistics: Equatable {
    /// A climb or descent must exceed this many metres before it counts: GPS altitude wanders
    /// by a few metres from fix to fix, and summing that jitter would add hundreds of metres
    /// of climbing to a walk along a lake.
    static let elevationThreshold = 5.0

    /// Metres along the track: the sum of the great-circle distances between fixes.
    var distance = 0.0
    /// Seconds from the first fix to the last.
    var duration = 0.0
    /// Metres climbed, jitter under ``elevationThreshold`` ignored.
    var elevationGain = 0.0

    /// Measures a track.
    /// - Parameter fixes: The fixes, oldest first.
    init(_ fixes: [Location]) {
        guard let first = fixes.first, let last = fixes.last else { return }
        duration = last.timestamp - first.timestamp
        for (previous, next) in zip(fixes, fixes.dropFirst()) {
            distance += previous.coordinate.distance(to: next.coordinate)
        }
        elevationGain = TrackStatistics.gain(fixes.compactMap(\.altitude))
    }

    /// Sums climbs with hysteresis. Going down, the lowest altitude is remembered; a climb
    /// starts counting only once the track is ``elevationThreshold`` above it, and then every
    /// new high counts, until the track is the threshold below the last high. Jitter smaller
    /// than the threshold thus never starts a climb or ends one.
    /// - Parameter altitudes: Altitudes in metres, oldest first.
    /// - Returns: Metres climbed.
    static func gain(_ altitudes: [Double]) -> Double {
        guard var reference = altitudes.first else { return 0 }
        var climbing = false
        var gain = 0.0
        for altitude in altitudes.dropFirst() {
            if climbing {
                if altitude > reference {
                    gain += altitude - reference
                    reference = altitude
                } else if reference - altitude >= elevationThreshold {
                    climbing = false
                    reference = altitude
                }
            } else if altitude < reference {
                reference = altitude
            } else if altitude - reference >= elevationThreshold {
                climbing = true
                gain += altitude - reference
                reference = altitude
            }
        }
        return gain
    }

    /// `2.41 km, 31 min, +57 m`.
    var summary: String {
        let minutes = Int((duration / 60).rounded())
        let time = minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(String(format: "%02d", minutes % 60)) min"
        return String(format: "%.2f km, ", distance / 1000) + time + String(format: ", +%.0f m", elevationGain)
    }
}
