import BackgroundKit
import Foundation

extension Location {
    /// The fix as one line of the track log (without the newline):
    /// `time,latitude,longitude,altitude,horizontalAccuracy,speed,course`.
    ///
    /// The time is written so it reads back bit for bit, because a fix delivered again after a
    /// crash is recognised by its time. Latitude and longitude have 9 decimals (0.1 mm);
    /// a field the receiver did not report is empty.
    var trackLogLine: String {
        func optional(_ value: Double?) -> String {
            guard let value, value.isFinite else { return "" }
            return "\(value)"
        }
        return [
            "\(timestamp)",
            String(format: "%.9f", coordinate.latitude),
            String(format: "%.9f", coordinate.longitude),
            optional(altitude),
            optional(horizontalAccuracy),
            optional(speed),
            optional(course),
        ].joined(separator: ",")
    }

    /// Reads a line written by ``trackLogLine``.
    /// - Parameter line: One line of the log, without its newline.
    /// - Returns: The fix, or `nil` when the line is not one.
    init?(trackLogLine line: Substring) {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 7,
            let timestamp = Double(fields[0]), timestamp.isFinite,
            let latitude = Double(fields[1]), let longitude = Double(fields[2])
        else { return nil }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isValid else { return nil }
        var optionals: [Double?] = []
        for field in fields[3...] {
            if field.isEmpty {
                optionals.append(nil)
            } else if let value = Double(field), value.isFinite {
                optionals.append(value)
            } else {
                return nil
            }
        }
        self.init(
            coordinate: coordinate,
            altitude: optionals[0],
            horizontalAccuracy: optionals[1],
            speed: optionals[2],
            course: optionals[3],
            timestamp: timestamp,
            fixMode: optionals[0] == nil ? .twoDimensional : .threeDimensional
        )
    }
}
