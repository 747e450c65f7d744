import BackgrounderCore
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A recorded walk to replay (`bgctl simulate route FILE`): the fixes of a GPX file's track
/// points, or of an NMEA log's `GGA` sentences (dated by the `RMC` ones), oldest first.
enum RouteFile {
    /// Why a file gives no route.
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Reads a GPX (`.gpx`) or NMEA file.
    /// - Parameter path: The file.
    /// - Returns: At least one fix, in time order.
    /// - Throws: ``Problem`` naming the file and why.
    static func read(_ path: String) throws(Problem) -> [Location] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem(description: "\(path): cannot be read: \(String(cString: strerror(errno)))")
        }
        let fixes: [Location]
        if path.lowercased().hasSuffix(".gpx") {
            fixes = try gpx(data, path: path)
        } else {
            fixes = NMEAFixes.parse(String(decoding: data, as: UTF8.self))
        }
        guard !fixes.isEmpty else {
            throw Problem(
                description:
                    "\(path): no fixes in it (a GPX file's <trkpt> with lat, lon and <time>, or NMEA GGA sentences with a fix and an RMC date)"
            )
        }
        // Only forward in time, as a receiver reports: a step back (a log's glitch) is left out.
        var ordered: [Location] = []
        for fix in fixes where fix.timestamp > (ordered.last?.timestamp ?? -Double.infinity) {
            ordered.append(fix)
        }
        return ordered
    }

    // MARK: GPX

    private static func gpx(_ data: Data, path: String) throws(Problem) -> [Location] {
        let reader = GPXPoints()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        guard parser.parse() else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed"
            throw Problem(description: "\(path): not a GPX file: line \(parser.lineNumber): \(reason)")
        }
        return reader.fixes
    }

    /// Collects `<trkpt>` (and `<rtept>`) points that have a time.
    private final class GPXPoints: NSObject, XMLParserDelegate {
        var fixes: [Location] = []
        private var point: Location?
        private var text = ""
        private let times = ISO8601DateFormatter()
        private let fractionalTimes: ISO8601DateFormatter = {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return formatter
        }()

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            text = ""
            guard name == "trkpt" || name == "rtept",
                let latitude = attributes["lat"].flatMap(Double.init),
                let longitude = attributes["lon"].flatMap(Double.init)
            else { return }
            point = Location(
                coordinate: Coordinate(latitude: latitude, longitude: longitude), timestamp: .nan,
                fixMode: .twoDimensional)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "ele":
                point?.altitude = Double(value)
                if point?.altitude != nil { point?.fixMode = .threeDimensional }
            case "time":
                let date = times.date(from: value) ?? fractionalTimes.date(from: value)
                point?.timestamp = date?.timeIntervalSince1970 ?? .nan
            case "trkpt", "rtept":
                if let point, point.timestamp.isFinite, point.coordinate.isValid { fixes.append(point) }
                point = nil
            default: break
            }
        }
    }
}
