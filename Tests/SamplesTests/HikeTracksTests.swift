import BackgroundKit
import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import Testing

@testable import HikeRecorder

/// What a hiker gets from HikeRecorder after walking: one track per hike, a climb that is
/// the climb and not the receiver's noise, and a picture, from the project's generated walks
/// (and real recorded ones in ../shared/data when they are there).
@Suite("HikeRecorder's tracks, climbs and pictures", .timeLimit(.minutes(5)))
struct HikeTracksTests {
    /// The climb a generated walk really had: the truth table's altitudes, every rise summed.
    static func trueClimb(_ fixture: String) throws -> Double {
        let altitudes = try TruthTrack.load(fixture).rows.map(\.altitude)
        return zip(altitudes, altitudes.dropFirst()).map { max(0, $1 - $0) }.reduce(0, +)
    }

    /// Records fixes as the daemon delivers them: in batches.
    static func record(_ fixes: [Location], into recorder: TrackRecorder, batch: Int = 40) throws {
        for start in stride(from: 0, to: fixes.count, by: batch) {
            _ = try recorder.record(Array(fixes[start..<min(fixes.count, start + batch)]))
        }
    }

    @Test("the climb of each generated walk is within 10% of the truth, and a walk along a level shore climbs nothing")
    func climbs() throws {
        let bled = try NMEAFixes.fixture("walk-bled.nmea")
        let truth = try Self.trueClimb("walk-bled")
        let gain = TrackStatistics(bled).elevationGain
        #expect(abs(gain - truth) <= 0.1 * truth, "measured \(gain) m, truth \(truth) m")
        // Summing the receiver's altitudes as they come would have been far off.
        let altitudes = bled.compactMap(\.altitude)
        let naive = zip(altitudes, altitudes.dropFirst()).map { max(0, $1 - $0) }.reduce(0, +)
        #expect(naive > 2 * truth)
        for fixture in ["short-walk", "stationary-jitter", "corrupt-lines"] {
            let measured = TrackStatistics(try NMEAFixes.fixture(fixture + ".nmea")).elevationGain
            let real = try Self.trueClimb(fixture)
            #expect(measured <= real + 5, "\(fixture): \(measured) m for a true \(real) m")
        }
    }

    @Test(
        "two walks recorded without HikeRecorder start give two tracks, each with its own fixes and climb; a batch delivered again adds nothing"
    )
    func twoWalksTwoTracks() throws {
        let directory = try TemporaryDirectory(prefix: "hike-two")
        defer { directory.remove() }
        let files = TrackFiles(directory: directory.appending("data"))
        let first = try NMEAFixes.fixture("short-walk.nmea")
        let second = try NMEAFixes.fixture("walk-bled.nmea")
        let recorder = try TrackRecorder(files: files)
        try Self.record(first, into: recorder)
        // One batch holding the first walk's last fixes and the second's first: cut between them.
        let straddling = Array(first.suffix(5) + second.prefix(30))
        let report = try recorder.record(straddling)
        #expect(report.archived.count == 1)
        #expect(report.append.alreadyRecorded == 5 && report.append.recorded.count == 30)
        try Self.record(Array(second.dropFirst(30)), into: recorder)

        let tracks = files.tracks()
        #expect(tracks.count == 2)
        #expect(tracks.map(\.isCurrent) == [false, true])
        let archived = try #require(try TrackLog.read(tracks[0].log)).fixes
        let current = try #require(try TrackLog.read(tracks[1].log)).fixes
        // As the log keeps them (nine decimals): compared by time.
        #expect(archived.map(\.timestamp) == first.map(\.timestamp))
        #expect(current.map(\.timestamp) == second.map(\.timestamp))
        let statistics = TrackStatistics(current)
        let truth = try Self.trueClimb("walk-bled")
        #expect(abs(statistics.elevationGain - truth) <= 0.1 * truth, "\(statistics.summary)")
        #expect(statistics.duration < 2 * 3600, "\(statistics.summary)")

        // The daemon delivers the straddling batch again (a crash before it heard back): the
        // new track's recorder skips what it holds, and the old fixes are not taken into it.
        let again = try TrackRecorder(files: files).record(straddling)
        #expect(again.append.recorded.isEmpty && again.archived.isEmpty, "\(again.line)")
        #expect(files.tracks().count == 2)

        // A recorder that starts on an empty current log after the archive (killed between
        // the archive and the append) takes the old walk's fixes for recorded ones.
        try FileManager.default.removeItem(atPath: files.log)
        let restarted = try TrackRecorder(files: files).record(straddling)
        #expect(restarted.append.alreadyRecorded == 5 && restarted.append.recorded.count == 30)
    }

    @Test("a gap without fixes inside a walk breaks the GPX line into segments; the distance skips the gap")
    func segmentsInGPX() throws {
        let bled = try NMEAFixes.fixture("walk-bled.nmea")
        // Five minutes without a fix halfway (a tunnel): the fixes after it come later.
        let half = bled.count / 2
        let shifted =
            Array(bled[..<half])
            + bled[half...].map { fix in
                var later = fix
                later.timestamp += 300
                return later
            }
        let document = GPXWriter.document(fixes: shifted, name: "Bled")
        let outline = try GPXOutline(Data(document.utf8))
        #expect(outline.elements(at: "gpx/trk/trkseg").count == 2)
        #expect(outline.elements(at: "gpx/trk/trkseg/trkpt").count == bled.count)
        let whole = TrackStatistics(bled)
        let broken = TrackStatistics(shifted)
        #expect(broken.segments == 2 && whole.segments == 1)
        #expect(
            abs(whole.distance - broken.distance - bled[half - 1].coordinate.distance(to: bled[half].coordinate))
                < 0.001)
    }

    @Test(
        "show's picture: an SVG with the route and the profile, read back; the sparkline climbs to the viewpoint and down"
    )
    func picture() throws {
        let bled = try NMEAFixes.fixture("walk-bled.nmea")
        let svg = TrackPicture.svg(bled, title: "Bled & Ojstrica")
        #expect(svg.utf8.count > 10_000)
        let outline = try GPXOutline(Data(svg.utf8))
        #expect(outline.elements(at: "svg").first?.attributes["width"] == "800")
        // The route (one segment) and the profile.
        let lines = outline.elements(at: "svg/polyline")
        #expect(lines.count == 2)
        let routePoints = lines[0].attributes["points"]?.split(separator: " ").count ?? 0
        #expect(routePoints == bled.count)
        // Every point lies inside the picture.
        for line in lines {
            for pair in (line.attributes["points"] ?? "").split(separator: " ") {
                let xy = pair.split(separator: ",").compactMap { Double($0) }
                #expect(xy.count == 2 && (0...800).contains(xy[0]) && (0...660).contains(xy[1]), "\(pair)")
            }
        }
        let texts = outline.elements(at: "svg/text").map(\.text)
        #expect(texts.contains { $0.hasPrefix("Bled & Ojstrica — ") }, "\(texts)")
        #expect(texts.contains { $0.hasSuffix(" km") || $0.hasSuffix(" m") })

        let sparkline = TrackPicture.sparkline(bled)
        #expect(sparkline.count == 48)
        // Level along the shore, up to the viewpoint, down again: the top is in the middle.
        let levels = Array("▁▂▃▄▅▆▇█")
        let heights = sparkline.map { levels.firstIndex(of: $0) ?? -1 }
        let top = try #require(heights.indices.max { heights[$0] < heights[$1] })
        #expect(heights[top] == 7, "\(sparkline)")
        #expect(heights.first! < 4 && heights.last! < 4, "\(sparkline)")
        #expect((8..<40).contains(top), "\(sparkline)")
        #expect(TrackPicture.niceLength(atMost: 1_430) == 1_000 && TrackPicture.niceLength(atMost: 240) == 200)
    }

    @Test(
        "real hikes from public sources get a sensible climb: within their relief, far below the logger's noise",
        .enabled(
            if: Locations.sharedGPSData("google_ext~kml.gpx") != nil, "../shared/data/gps is not beside the repository")
    )
    func realHikes() throws {
        // Austin TX, 7.8 km: its relief is 76 m; the file's own description claims 1921 ft.
        let fixes = try Self.readGPX(try #require(Locations.sharedGPSData("google_ext~kml.gpx")))
        #expect(fixes.count > 400)
        let altitudes = fixes.compactMap(\.altitude)
        let relief = (altitudes.max() ?? 0) - (altitudes.min() ?? 0)
        let gain = TrackStatistics(fixes).elevationGain
        #expect(gain >= relief && gain <= 4 * relief, "gain \(gain) m, relief \(relief) m")
        let naive = zip(altitudes, altitudes.dropFirst()).map { max(0, $1 - $0) }.reduce(0, +)
        #expect(gain < naive / 2, "gain \(gain) m, naive \(naive) m")
    }

    /// A GPX file's track points with their altitudes and times.
    static func readGPX(_ path: String) throws -> [Location] {
        let outline = try GPXOutline(Data(contentsOf: URL(fileURLWithPath: path)))
        let times = ISO8601DateFormatter()
        var fixes: [Location] = []
        for element in outline.elements(at: "gpx/trk/trkseg/trkpt") {
            guard let latitude = element.attributes["lat"].flatMap(Double.init),
                let longitude = element.attributes["lon"].flatMap(Double.init)
            else { continue }
            fixes.append(
                Location(
                    coordinate: Coordinate(latitude: latitude, longitude: longitude), timestamp: 0,
                    fixMode: .threeDimensional))
        }
        // Children come in document order, one ele and one time per point in this file.
        let altitudes = outline.elements(at: "gpx/trk/trkseg/trkpt/ele").map { Double($0.text) }
        let stamps = outline.elements(at: "gpx/trk/trkseg/trkpt/time").map {
            times.date(from: $0.text.trimmingCharacters(in: .whitespacesAndNewlines))?.timeIntervalSince1970
        }
        guard altitudes.count == fixes.count, stamps.count == fixes.count else { return [] }
        for index in fixes.indices {
            fixes[index].altitude = altitudes[index]
            fixes[index].timestamp = stamps[index] ?? 0
        }
        return fixes
    }
}
