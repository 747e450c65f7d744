import BackgroundKit
import Foundation

/// How far, how long and how much uphill a track went.
struct TrackStatistics: Equatable {
    /// Seconds of fixes averaged around each one before climbs are counted: GPS altitude
    /// wanders by metres over a minute or more, so a single fix's neighbours barely help.
    static let smoothingWindow = 180.0
    /// A climb or descent of the averaged altitude must exceed this many metres before it
    /// counts (hysteresis). With ``smoothingWindow`` it comes within 10% of the true climb
    /// on the project's generated walks (Bled: 125 m true; 13 noise draws, -3% to +8%), where
    /// raw fixes summed gave +293 m; on real hikes of ../shared/data it gives 166 m for a
    /// 76 m-relief trail the logger's own file claims 585 m for (docs/TESTING.md).
    static let elevationThreshold = 8.0

    /// Metres along the track: the great-circle distances between fixes, within segments.
    var distance = 0.0
    /// Seconds from the first fix to the last.
    var duration = 0.0
    /// Metres climbed, by the averaged altitude, climbs under ``elevationThreshold`` ignored.
    var elevationGain = 0.0
    /// Segments: the line broken where the receiver had no fix (``TrackPolicy``).
    var segments = 0

    /// Measures a track.
    /// - Parameter fixes: The fixes, oldest first.
    init(_ fixes: [Location]) {
        guard let first = fixes.first, let last = fixes.last else { return }
        duration = last.timestamp - first.timestamp
        let parts = TrackPolicy.segments(fixes)
        segments = parts.count
        for part in parts {
            for (previous, next) in zip(part, part.dropFirst()) {
                distance += previous.coordinate.distance(to: next.coordinate)
            }
        }
        elevationGain = Self.gain(Self.smoothed(fixes))
    }

    /// Each fix's altitude averaged with those within half of ``smoothingWindow`` of it, in
    /// time; fixes without an altitude are left out.
    static func smoothed(_ fixes: [Location]) -> [Double] {
        let points = fixes.compactMap { fix in fix.altitude.flatMap { $0.isFinite ? (fix.timestamp, $0) : nil } }
        var averaged: [Double] = []
        averaged.reserveCapacity(points.count)
        var lower = 0
        var upper = 0
        var sum = 0.0
        for (time, _) in points {
            // A sliding window over times that only move forward: each fix enters and leaves once.
            while upper < points.count, points[upper].0 <= time + smoothingWindow / 2 {
                sum += points[upper].1
                upper += 1
            }
            while points[lower].0 < time - smoothingWindow / 2 {
                sum -= points[lower].1
                lower += 1
            }
            averaged.append(sum / Double(upper - lower))
        }
        return averaged
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

    /// `2.41 km, 31 min, +57 m`, and the segments when the line is broken.
    var summary: String {
        let minutes = Int((duration / 60).rounded())
        let time = minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(String(format: "%02d", minutes % 60)) min"
        var text = String(format: "%.2f km, ", distance / 1000) + time + String(format: ", +%.0f m", elevationGain)
        if segments > 1 { text += ", \(segments) segments" }
        return text
    }
}
