import BackgroundKit
import Testing

@testable import HikeRecorder

@Suite("HikeRecorder's statistics", .timeLimit(.minutes(5)))
struct TrackStatisticsTests {
    @Test("distance sums great-circle steps: one degree of a meridian is 111.195 km")
    func distance() {
        // A thousandth of a degree (111 m) a minute, a fast walk.
        let meridian = TrackStatistics((0...1000).map { Fix.at(Double($0) / 1000, 0, time: Double($0) * 60) })
        #expect(abs(meridian.distance - 111_195.08) < 0.01)
        #expect(meridian.segments == 1)
        // Out and back along the equator: twice 0.001 degrees of longitude.
        let outAndBack = TrackStatistics([
            Fix.at(0, 10, time: 0), Fix.at(0, 10.001, time: 60), Fix.at(0, 10, time: 120),
        ])
        #expect(abs(outAndBack.distance - 2 * 111.19508) < 0.001)
    }

    @Test("a gap without fixes breaks the line: no distance is counted across it")
    func segments() {
        let before = (0...10).map { Fix.at(46, 7 + Double($0) / 10_000, time: Double($0) * 5) }
        // Ten minutes without a fix, 600 m further on: a new segment, the jump not walked.
        let after = (0...10).map { Fix.at(46, 7.01 + Double($0) / 10_000, time: 650 + Double($0) * 5) }
        let statistics = TrackStatistics(before + after)
        #expect(statistics.segments == 2)
        let walked = TrackStatistics(before).distance + TrackStatistics(after).distance
        #expect(abs(statistics.distance - walked) < 0.001)
        #expect(statistics.summary.hasSuffix(", 2 segments"))
        // Standing still for ten minutes with fixes all along is one segment.
        let resting = (0...120).map { Fix.at(46, 7, time: Double($0) * 5) }
        #expect(TrackStatistics(resting).segments == 1)
    }

    @Test("duration runs from the first fix to the last")
    func duration() {
        #expect(TrackStatistics([Fix.at(46, 7, time: 12.5), Fix.at(46, 7, time: 1_872.5)]).duration == 1_860)
        #expect(TrackStatistics([]).duration == 0)
        #expect(TrackStatistics([Fix.at(46, 7, time: 3)]).distance == 0)
    }

    /// Plus or minus 2 m, the way a receiver's altitude wanders while standing still.
    private static let jitter: [Double] = [0, 2, -2, 1, -1.5, 2, 0.5, -2, 1.5, -0.5]

    @Test("±2 m of altitude jitter adds no elevation gain")
    func jitterIgnored() {
        let altitudes = (0..<200).map { 812 + Self.jitter[$0 % Self.jitter.count] }
        #expect(TrackStatistics.gain(altitudes) == 0)
        // Summing every rise would have counted hundreds of metres.
        let naive = zip(altitudes, altitudes.dropFirst()).map { max(0, $1 - $0) }.reduce(0, +)
        #expect(naive > 200)
    }

    @Test("a real 50 m climb counts, with or without jitter on top")
    func climbCounted() {
        let clean = (0...50).map { 100 + Double($0) }
        #expect(TrackStatistics.gain(clean) == 50)
        let noisy = (0...100).map { 100 + Double($0) / 2 + Self.jitter[$0 % Self.jitter.count] }
        let gain = TrackStatistics.gain(noisy)
        #expect((46...54).contains(gain), "gain \(gain)")
    }

    @Test("climbs either side of a descent both count; the descent does not")
    func climbDescentClimb() {
        let up = (0...50).map { 100 + Double($0) }
        let down = (1...30).map { 150 - Double($0) }
        let upAgain = (1...50).map { 120 + Double($0) }
        #expect(TrackStatistics.gain(up + down + upAgain) == 100)
        #expect(TrackStatistics.gain(down) == 0)
    }

    @Test("fixes without altitude are skipped for the gain, not treated as sea level")
    func missingAltitude() {
        let fixes = [
            Fix.at(46, 7, altitude: 500, time: 0), Fix.at(46, 7, time: 300), Fix.at(46, 7, altitude: 530, time: 600),
        ]
        #expect(TrackStatistics(fixes).elevationGain == 30)
    }

    @Test("altitudes are averaged over three minutes of fixes before climbs are counted")
    func smoothing() {
        // A fix every 5 s: ±6 m swings a minute long average out; a 40 m climb over ten minutes stays.
        let swings = (0..<240).map { Fix.at(46, 7, altitude: 500 + ($0 / 12 % 2 == 0 ? 6 : -6), time: Double($0) * 5) }
        #expect(TrackStatistics(swings).elevationGain == 0)
        // Three minutes level first and last, so the average is whole at both ends.
        let climb = (0..<240).map {
            Fix.at(46, 7, altitude: 500 + min(40, max(0, Double($0 - 36) / 3)), time: Double($0) * 5)
        }
        #expect(abs(TrackStatistics(climb).elevationGain - 40) < 1)
    }

    @Test("the summary line: kilometres, minutes (hours past 60), metres climbed")
    func summary() {
        var statistics = TrackStatistics([])
        (statistics.distance, statistics.duration, statistics.elevationGain) = (2_412, 31 * 60 + 10, 57.4)
        statistics.segments = 1
        #expect(statistics.summary == "2.41 km, 31 min, +57 m")
        statistics.duration = 2 * 3_600 + 5 * 60
        #expect(statistics.summary == "2.41 km, 2 h 05 min, +57 m")
    }
}
