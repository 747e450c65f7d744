import BackgroundKit
import BackgrounderTestSupport
import Foundation
import Testing

@testable import HikeRecorder

@Suite("HikeRecorder's GPX", .timeLimit(.minutes(5)))
struct GPXWriterTests {
    @Test("the document is well-formed GPX 1.1 with elements in the schema's order")
    func structure() throws {
        let fixes = Fix.walk(count: 12)
        let outline = try GPXOutline(Data(GPXWriter.document(fixes: fixes, name: "Gantrisch").utf8))

        let root = try #require(outline.elements.first)
        #expect(root.path == "gpx")
        #expect(root.attributes["version"] == "1.1")
        #expect(root.attributes["creator"] == "HikeRecorder")
        #expect(root.children == ["metadata", "trk"])
        #expect(outline.elements(at: "gpx/metadata").first?.children == ["name", "time", "bounds"])
        #expect(outline.elements(at: "gpx/metadata/time").first?.text == "2024-06-10T07:13:20Z")
        let bounds = try #require(outline.elements(at: "gpx/metadata/bounds").first)
        #expect(bounds.attributes["minlat"] == "46.512345678")
        #expect(bounds.attributes["maxlon"] == String(format: "%.9f", fixes[11].coordinate.longitude))
        #expect(outline.elements(at: "gpx/trk").first?.children == ["name", "trkseg"])
        #expect(outline.elements(at: "gpx/trk/name").first?.text == "Gantrisch")

        let points = outline.elements(at: "gpx/trk/trkseg/trkpt")
        #expect(points.count == fixes.count)
        for (point, fix) in zip(points, fixes) {
            #expect(point.children == (fix.altitude == nil ? ["time"] : ["ele", "time"]))
            #expect(point.attributes["lat"] == String(format: "%.9f", fix.coordinate.latitude))
            #expect(point.attributes["lon"] == String(format: "%.9f", fix.coordinate.longitude))
        }
        let times = outline.elements(at: "gpx/trk/trkseg/trkpt/time").map(\.text)
        #expect(
            Array(times.prefix(3)) == ["2024-06-10T07:13:20Z", "2024-06-10T07:13:30.250Z", "2024-06-10T07:13:40.500Z"])
        #expect(outline.elements(at: "gpx/trk/trkseg/trkpt/ele").first?.text == "1500.25")
    }

    @Test("an empty track is still a valid document, without bounds")
    func emptyTrack() throws {
        let outline = try GPXOutline(Data(GPXWriter.document(fixes: [], name: "Hike").utf8))
        #expect(outline.elements(at: "gpx/metadata").first?.children == ["name"])
        #expect(outline.elements(at: "gpx/trk/trkseg").count == 1)
        #expect(outline.elements(at: "gpx/trk/trkseg/trkpt").isEmpty)
    }

    @Test("the name is escaped, and characters XML forbids are left out")
    func escaping() throws {
        let name = "Tom & Jerry's <\"hike\">\u{1}\u{1B} über Grat"
        let document = GPXWriter.document(fixes: Fix.walk(count: 1), name: name)
        #expect(document.contains("<name>Tom &amp; Jerry&apos;s &lt;&quot;hike&quot;&gt; über Grat</name>"))
        let outline = try GPXOutline(Data(document.utf8))
        #expect(outline.elements(at: "gpx/trk/name").first?.text == "Tom & Jerry's <\"hike\"> über Grat")
        #expect("a\tb\nc".xmlEscaped == "a\tb\nc")
    }

    @Test("times are UTC ISO 8601, with milliseconds only when there is a fraction")
    func times() {
        #expect(UTCTime.iso8601(Fix.start) == "2024-06-10T07:13:20Z")
        #expect(UTCTime.iso8601(Fix.start + 0.5) == "2024-06-10T07:13:20.500Z")
        #expect(UTCTime.iso8601(Fix.start + 0.0004) == "2024-06-10T07:13:20Z")
        // Rounding to the millisecond carries into the next minute, hour and day.
        #expect(UTCTime.iso8601(1_718_063_999.9996) == "2024-06-11T00:00:00Z")
        #expect(UTCTime.iso8601(-0.25) == "1969-12-31T23:59:59.750Z")
        #expect(UTCTime.compact(Fix.start + 0.9) == "20240610T071320Z")
    }

    @Test(
        "xmllint finds it well-formed and gpsbabel reads back every point to 1e-7 degrees",
        .enabled(if: Locations.hasProgram("gpsbabel") && Locations.hasProgram("xmllint"))
    )
    func readByOtherTools() async throws {
        let directory = try TemporaryDirectory(prefix: "gpx")
        defer { directory.remove() }
        let fixes = Fix.walk(count: 40) + [Fix.at(-33.868_820_012, -151.209_295_987, altitude: -2.5, time: 1_000)]
        let path = directory.appending("track.gpx")
        try DurableFiles.replace(path, with: Array(GPXWriter.document(fixes: fixes, name: "A & B").utf8))

        let lint = try await run("xmllint", ["--noout", path], in: directory)
        #expect(lint.status == 0, "\(lint.output)")

        // unicsv prints six decimals, too few to check 1e-7; an xcsv style asks for nine.
        let style = directory.appending("nine-decimals.style")
        try Data(
            """
            FIELD_DELIMITER COMMA
            RECORD_DELIMITER NEWLINE
            IFIELD LAT_DECIMAL, "", "%.9f"
            IFIELD LON_DECIMAL, "", "%.9f"
            IFIELD ALT_METERS, "", "%.3f"
            IFIELD ISO_TIME_MS, "", "%s"

            """.utf8
        ).write(to: URL(fileURLWithPath: style))
        let csv = directory.appending("points.csv")
        let babel = try await run(
            "gpsbabel", ["-t", "-i", "gpx", "-f", path, "-o", "xcsv,style=\(style)", "-F", csv], in: directory)
        #expect(babel.status == 0, "\(babel.output)")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").map {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        try #require(rows.count == fixes.count)
        for (row, fix) in zip(rows, fixes) {
            let latitude = try #require(Double(row[0]))
            let longitude = try #require(Double(row[1]))
            #expect(abs(latitude - fix.coordinate.latitude) < 1e-7)
            #expect(abs(longitude - fix.coordinate.longitude) < 1e-7)
            if let altitude = fix.altitude {
                #expect(abs((Double(row[2]) ?? .nan) - altitude) < 0.005)
            }
            #expect(String(row[3]) == UTCTime.iso8601(fix.timestamp))
        }

        // The same reader refuses a broken document, so its acceptance above means something.
        try Data("<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"1\"".utf8).write(to: URL(fileURLWithPath: path))
        let broken = try await run(
            "gpsbabel", ["-t", "-i", "gpx", "-f", path, "-o", "unicsv", "-F", csv], in: directory)
        #expect(broken.status != 0)
    }

    private func run(_ program: String, _ arguments: [String], in directory: TemporaryDirectory) async throws
        -> (status: Int32?, output: String)
    {
        try await runProgram("/usr/bin/env", [program] + arguments, in: directory)
    }
}
