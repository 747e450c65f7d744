import BackgroundKit
import Foundation

/// Writes a track as a GPX 1.1 document, the format every map and hiking app imports.
///
/// Elements come in the order the GPX 1.1 schema's sequences require (`metadata` before
/// `trk`; `name`, `time`, `bounds` in `metadata`; `ele` before `time` in a `trkpt`), since
/// validating readers reject any other order.
enum GPXWriter {
    /// The document.
    /// - Parameters:
    ///   - fixes: The track, oldest first.
    ///   - name: The track's name, for people; escaped here.
    /// - Returns: The GPX text, UTF-8, ending with a newline.
    static func document(fixes: [Location], name: String) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="HikeRecorder" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">

            """
        xml += "  <metadata>\n"
        xml += "    <name>\(name.xmlEscaped)</name>\n"
        if let first = fixes.first {
            xml += "    <time>\(UTCTime.iso8601(first.timestamp))</time>\n"
            xml += "    " + bounds(fixes, first: first) + "\n"
        }
        xml += "  </metadata>\n"
        xml += "  <trk>\n"
        xml += "    <name>\(name.xmlEscaped)</name>\n"
        // A segment per stretch the receiver had fixes for (TrackPolicy): a map draws no line
        // across a gap, and GPX readers count no distance there.
        let segments = TrackPolicy.segments(fixes)
        for segment in segments.isEmpty ? [[]] : segments {
            xml += "    <trkseg>\n"
            for fix in segment {
                xml +=
                    "      <trkpt lat=\"\(degrees(fix.coordinate.latitude))\" lon=\"\(degrees(fix.coordinate.longitude))\">"
                if let altitude = fix.altitude, altitude.isFinite {
                    xml += "<ele>\(String(format: "%.2f", altitude))</ele>"
                }
                xml += "<time>\(UTCTime.iso8601(fix.timestamp))</time></trkpt>\n"
            }
            xml += "    </trkseg>\n"
        }
        xml += "  </trk>\n"
        xml += "</gpx>\n"
        return xml
    }

    /// The name a track gets when nobody chose one: when it started.
    /// - Parameter fixes: The track.
    /// - Returns: `Hike 2024-06-10 07:13 UTC`, or `Hike` for an empty track.
    static func defaultName(for fixes: [Location]) -> String {
        guard let first = fixes.first else { return "Hike" }
        let time = UTCTime.iso8601(first.timestamp)
        return "Hike \(time.prefix(10)) \(time.dropFirst(11).prefix(5)) UTC"
    }

    /// Nine decimals: 0.1 mm, so coordinates read back as they were recorded. A fixed-point
    /// form, since `xsd:decimal` has no exponent.
    private static func degrees(_ value: Double) -> String {
        String(format: "%.9f", value)
    }

    private static func bounds(_ fixes: [Location], first: Location) -> String {
        var (minimum, maximum) = (first.coordinate, first.coordinate)
        for fix in fixes {
            minimum.latitude = min(minimum.latitude, fix.coordinate.latitude)
            minimum.longitude = min(minimum.longitude, fix.coordinate.longitude)
            maximum.latitude = max(maximum.latitude, fix.coordinate.latitude)
            maximum.longitude = max(maximum.longitude, fix.coordinate.longitude)
        }
        return "<bounds minlat=\"\(degrees(minimum.latitude))\" minlon=\"\(degrees(minimum.longitude))\" "
            + "maxlat=\"\(degrees(maximum.latitude))\" maxlon=\"\(degrees(maximum.longitude))\"/>"
    }
}
