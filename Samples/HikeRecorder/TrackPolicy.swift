import BackgroundKit

/// Where one hike ends and the next begins, and where a hike's line is broken.
///
/// The recorder takes every fix (no distance filter), and the daemon queues fixes while the
/// app is suspended, so a gap between fixes is time the receiver had no fix: a tunnel, a
/// forest, the receiver off. A short one breaks the line (a new GPX `<trkseg>`, no distance
/// counted across it); a long one, or a jump no walker makes, is another hike.
enum TrackPolicy {
    /// No fix for this long, and the next fix starts a new track: 30 minutes.
    static let newTrackGap = 30.0 * 60
    /// The next fix this far from the last, whatever the time between, starts a new track.
    static let newTrackJump = 2_000.0
    /// No fix for this long breaks the line into a new segment.
    static let newSegmentGap = 120.0
    /// A jump this long between consecutive fixes breaks the line.
    static let newSegmentJump = 500.0

    /// Whether `next` belongs to another hike than `previous`.
    static func startsNewTrack(after previous: Location, _ next: Location) -> Bool {
        next.timestamp - previous.timestamp > newTrackGap
            || previous.coordinate.distance(to: next.coordinate) > newTrackJump
    }

    /// Whether the line breaks between `previous` and `next`.
    static func startsNewSegment(after previous: Location, _ next: Location) -> Bool {
        next.timestamp - previous.timestamp > newSegmentGap
            || previous.coordinate.distance(to: next.coordinate) > newSegmentJump
    }

    /// A track's fixes as its segments, oldest first; none for no fixes.
    static func segments(_ fixes: [Location]) -> [ArraySlice<Location>] {
        guard !fixes.isEmpty else { return [] }
        var segments: [ArraySlice<Location>] = []
        var start = fixes.startIndex
        for index in fixes.indices.dropFirst() where startsNewSegment(after: fixes[index - 1], fixes[index]) {
            segments.append(fixes[start..<index])
            start = index
        }
        segments.append(fixes[start...])
        return segments
    }
}
