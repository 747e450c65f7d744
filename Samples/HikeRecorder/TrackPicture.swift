import BackgroundKit
import Foundation

/// A track to look at: an SVG picture with the route drawn to scale (and a scale bar) above
/// its elevation profile, and a one-line sparkline of the profile for the terminal.
///
/// SVG because every browser and image viewer opens it and it is text: no image library.
enum TrackPicture {
    /// The picture's size in pixels.
    static let width = 800.0
    static let mapHeight = 460.0
    static let profileHeight = 200.0
    static let margin = 40.0

    /// The profile: distance walked (metres, nothing across a gap) and the averaged altitude
    /// (``TrackStatistics/smoothed(_:)``) at each fix that has one.
    static func profile(_ fixes: [Location]) -> [(distance: Double, altitude: Double)] {
        var walked = 0.0
        var distances: [Double] = []
        for segment in TrackPolicy.segments(fixes) {
            for (index, fix) in zip(segment.indices, segment) {
                if index > segment.startIndex { walked += segment[index - 1].coordinate.distance(to: fix.coordinate) }
                if let altitude = fix.altitude, altitude.isFinite { distances.append(walked) }
            }
        }
        return Array(zip(distances, TrackStatistics.smoothed(fixes)).map { (distance: $0, altitude: $1) })
    }

    /// `▁▂▄▆█▆▄▂▁`: the profile in `width` characters, by distance; empty without altitudes.
    static func sparkline(_ fixes: [Location], width: Int = 48) -> String {
        let points = profile(fixes)
        guard let first = points.first, let last = points.last, width > 0 else { return "" }
        let levels = Array("▁▂▃▄▅▆▇█")
        let span = max(last.distance - first.distance, 1)
        var columns: [[Double]] = Array(repeating: [], count: width)
        for point in points {
            let column = min(width - 1, Int((point.distance - first.distance) / span * Double(width)))
            columns[column].append(point.altitude)
        }
        // A column no fix fell in (a long step) repeats the one before.
        var averages: [Double] = []
        for column in columns {
            averages.append(
                column.isEmpty ? averages.last ?? first.altitude : column.reduce(0, +) / Double(column.count))
        }
        let low = averages.min() ?? 0
        let high = averages.max() ?? 0
        var text = ""
        for altitude in averages {
            let level = high - low < 1 ? 0 : Int(((altitude - low) / (high - low) * Double(levels.count - 1)).rounded())
            text.append(levels[max(0, min(levels.count - 1, level))])
        }
        return text
    }

    /// The SVG document.
    /// - Parameters:
    ///   - fixes: The track, oldest first.
    ///   - title: Its name, escaped here.
    /// - Returns: SVG 1.1 text.
    static func svg(_ fixes: [Location], title: String) -> String {
        let statistics = TrackStatistics(fixes)
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(Int(width))" \
            height="\(Int(mapHeight + profileHeight))" viewBox="0 0 \(Int(width)) \(Int(mapHeight + profileHeight))">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(Int(margin))" y="24" font-family="sans-serif" font-size="16">\
            \("\(title) — \(statistics.summary)".xmlEscaped)</text>

            """
        svg += route(fixes)
        svg += elevation(fixes)
        svg += "</svg>\n"
        return svg
    }

    // MARK: The route

    /// The route, projected equirectangularly around its middle latitude (true to scale over
    /// a hike's few kilometres), fitted into the map area, with a scale bar.
    private static func route(_ fixes: [Location]) -> String {
        guard let first = fixes.first else {
            return text("no fixes yet", x: margin, y: mapHeight / 2)
        }
        let metresPerDegree = 111_195.08
        let latitudes = fixes.map(\.coordinate.latitude)
        let longitudes = fixes.map(\.coordinate.longitude)
        let middle = ((latitudes.min() ?? 0) + (latitudes.max() ?? 0)) / 2
        let east = { (longitude: Double) in
            (longitude - first.coordinate.longitude) * metresPerDegree * cos(middle * .pi / 180)
        }
        let north = { (latitude: Double) in (latitude - first.coordinate.latitude) * metresPerDegree }
        let xs = longitudes.map(east)
        let ys = latitudes.map(north)
        let (minX, maxX, minY, maxY) = (xs.min() ?? 0, xs.max() ?? 0, ys.min() ?? 0, ys.max() ?? 0)
        let box = (width: width - 2 * margin, height: mapHeight - 40 - margin)
        let scale = min(box.width / max(maxX - minX, 1), box.height / max(maxY - minY, 1))
        let offsetX = margin + (box.width - (maxX - minX) * scale) / 2
        let offsetY = 40 + (box.height - (maxY - minY) * scale) / 2
        func point(_ fix: Location) -> (Double, Double) {
            (
                offsetX + (east(fix.coordinate.longitude) - minX) * scale,
                offsetY + (maxY - north(fix.coordinate.latitude)) * scale
            )
        }
        var svg = ""
        for segment in TrackPolicy.segments(fixes) {
            let points = segment.map(point).map { String(format: "%.1f,%.1f", $0.0, $0.1) }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"3\" points=\"\(points)\"/>\n"
        }
        let start = point(first)
        let end = point(fixes[fixes.count - 1])
        svg += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"#27ae60\"/>\n", start.0, start.1)
        svg += String(
            format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"#2c3e50\"/>\n", end.0 - 5, end.1 - 5)
        // The longest 1, 2 or 5 times a power of ten that fits a quarter of the width.
        let metres = niceLength(atMost: box.width / 4 / scale)
        let barY = mapHeight - 16
        svg += String(
            format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-width=\"3\"/>\n",
            margin, barY, margin + metres * scale, barY)
        svg += text(metres >= 1000 ? "\(format(metres / 1000)) km" : "\(format(metres)) m", x: margin, y: barY - 6)
        return svg
    }

    /// 1, 2 or 5 times a power of ten, at most `limit` (and at least 1 m).
    static func niceLength(atMost limit: Double) -> Double {
        guard limit >= 1 else { return 1 }
        let power = pow(10, floor(log10(limit)))
        return [5.0, 2, 1].map { $0 * power }.first { $0 <= limit } ?? power
    }

    // MARK: The profile

    private static func elevation(_ fixes: [Location]) -> String {
        let points = profile(fixes)
        let top = mapHeight + 10
        guard let first = points.first, let last = points.last else {
            return text("no altitude in this track", x: margin, y: top + profileHeight / 2)
        }
        let low = points.map(\.altitude).min() ?? 0
        let high = max(points.map(\.altitude).max() ?? 0, low + 10)
        let plot = (x: margin + 50, y: top, width: width - 2 * margin - 50, height: profileHeight - 40)
        let span = max(last.distance - first.distance, 1)
        let coordinates = points.map { point in
            String(
                format: "%.1f,%.1f", plot.x + (point.distance - first.distance) / span * plot.width,
                plot.y + (high - point.altitude) / (high - low) * plot.height)
        }
        var svg = "<rect x=\"\(plot.x)\" y=\"\(plot.y)\" width=\"\(plot.width)\" height=\"\(plot.height)\" "
        svg += "fill=\"#f4f6f7\" stroke=\"#bdc3c7\"/>\n"
        svg +=
            "<polyline fill=\"none\" stroke=\"#2980b9\" stroke-width=\"2\" points=\"\(coordinates.joined(separator: " "))\"/>\n"
        svg += text("\(Int(high.rounded())) m", x: margin, y: plot.y + 12)
        svg += text("\(Int(low.rounded())) m", x: margin, y: plot.y + plot.height)
        svg += text("0 km", x: plot.x, y: plot.y + plot.height + 18)
        svg += text("\(format(span / 1000)) km", x: plot.x + plot.width - 50, y: plot.y + plot.height + 18)
        return svg
    }

    private static func text(_ content: String, x: Double, y: Double) -> String {
        String(format: "<text x=\"%.1f\" y=\"%.1f\" font-family=\"sans-serif\" font-size=\"13\">", x, y)
            + content.xmlEscaped + "</text>\n"
    }

    /// `2`, `0.5`, `1.25`: no trailing zeros.
    private static func format(_ value: Double) -> String {
        var text = String(format: "%.2f", value)
        while text.contains("."), text.hasSuffix("0") || text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
