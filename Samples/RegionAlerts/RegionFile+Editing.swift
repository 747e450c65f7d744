import BackgroundKit
import Foundation

extension RegionFile {
    /// A file with no regions, for the first `add`.
    static let empty = RegionFile(
        json: .object(["type": .string("FeatureCollection"), "features": .array([])]), regions: [])

    /// The file with a region added, replacing one with the same identifier (as
    /// `startMonitoring(for:)` does).
    /// - Parameter region: The region.
    /// - Returns: The new file, other features and members untouched.
    /// - Throws: ``RegionFileError`` when the region is not one the file can hold.
    func adding(_ region: CircularRegion, file: String) throws(RegionFileError) -> RegionFile {
        var properties: [String: JSONValue] = ["id": .string(region.identifier), "radius": .number(region.radius)]
        if !region.notifyOnEntry { properties["notifyOnEntry"] = .bool(false) }
        if !region.notifyOnExit { properties["notifyOnExit"] = .bool(false) }
        let feature = JSONValue.object([
            "type": .string("Feature"),
            "geometry": .object([
                "type": .string("Point"),
                "coordinates": .array([.number(region.center.longitude), .number(region.center.latitude)]),
            ]),
            "properties": .object(properties),
        ])
        return try RegionFile(
            json: replacingFeatures { $0.filter { !Self.names($0, region.identifier) } + [feature] }, file: file)
    }

    /// The file without a region.
    /// - Parameter identifier: The region's identifier.
    /// - Returns: The new file, or `nil` when it has no such region.
    func removing(_ identifier: String) -> RegionFile? {
        guard regions.contains(where: { $0.identifier == identifier }) else { return nil }
        let json = replacingFeatures { $0.filter { !Self.names($0, identifier) } }
        return RegionFile(json: json, regions: regions.filter { $0.identifier != identifier })
    }

    /// The file as a person reads it: indented, keys sorted, ending with a newline.
    var data: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail: every case maps to JSON.
        return (try? encoder.encode(json)).map { $0 + Data("\n".utf8) } ?? Data()
    }

    private func replacingFeatures(_ change: ([JSONValue]) -> [JSONValue]) -> JSONValue {
        guard case .object(var members) = json, case .array(let features)? = members["features"] else { return json }
        members["features"] = .array(change(features))
        return .object(members)
    }

    /// Whether a feature is the region `identifier` (by `id`, or by `name` when it has no `id`).
    private static func names(_ feature: JSONValue, _ identifier: String) -> Bool {
        let properties = feature["properties"]
        return (properties?["id"] ?? properties?["name"]) == .string(identifier)
    }
}
