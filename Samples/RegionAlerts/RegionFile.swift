import BackgroundKit
import Foundation

/// The regions a person chose, as a GeoJSON FeatureCollection of Point features:
///
/// ```json
/// {"type": "FeatureCollection", "features": [
///   {"type": "Feature", "geometry": {"type": "Point", "coordinates": [7.4474, 46.948]},
///    "properties": {"id": "home", "radius": 150, "notifyOnExit": false}}]}
/// ```
///
/// `coordinates` are `[longitude, latitude]` (GeoJSON's order). `properties.id` (or `name`)
/// identifies the region, `radius` is in metres, `notifyOnEntry` and `notifyOnExit` default to
/// `true`. Other members are kept but not read.
struct RegionFile: Equatable {
    /// The largest radius, in metres, as the daemon's region monitor accepts.
    static let maximumRadius = 100_000.0
    /// The longest identifier, in UTF-8 bytes, as the daemon accepts.
    static let maximumIdentifierBytes = 256

    /// What an identifier must be. The alert log has one line per alert, ending with the
    /// identifier, so it may not hold a line break or any other control character.
    static let identifierRule =
        "a non-empty string of at most \(maximumIdentifierBytes) bytes without control characters"
    /// What a radius must be.
    static let radiusRule = "a number of metres between 1 and \(JSONValue.format(maximumRadius))"

    /// Whether a string can identify a region (``identifierRule``).
    static func isAcceptableIdentifier(_ identifier: String) -> Bool {
        !identifier.isEmpty && identifier.utf8.count <= maximumIdentifierBytes
            && !identifier.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }

    /// The file as read, members this app does not read included.
    var json: JSONValue
    /// The regions, in the file's order.
    var regions: [CircularRegion]

    /// A file from parts already checked.
    /// - Parameters:
    ///   - json: The FeatureCollection.
    ///   - regions: Its regions.
    init(json: JSONValue, regions: [CircularRegion]) {
        self.json = json
        self.regions = regions
    }

    /// Reads and checks a regions file.
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - file: Its name, for messages.
    /// - Throws: ``RegionFileError`` naming the feature and field that are wrong.
    init(data: Data, file: String) throws(RegionFileError) {
        let json: JSONValue
        do {
            json = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw RegionFileError(code: .notJSON, file: file, reason: "not JSON: \(RegionFile.explain(data))")
        }
        try self.init(json: json, file: file)
    }

    /// Checks a GeoJSON value.
    /// - Parameters:
    ///   - json: The FeatureCollection.
    ///   - file: The file's name, for messages.
    /// - Throws: ``RegionFileError`` naming the feature and field that are wrong.
    init(json: JSONValue, file: String) throws(RegionFileError) {
        func refuse(_ field: String?, _ reason: String) -> RegionFileError {
            RegionFileError(code: .invalid, file: file, field: field, reason: reason)
        }
        guard case .object = json else {
            throw refuse(nil, "must be a GeoJSON FeatureCollection (an object), not \(json.quoted)")
        }
        guard json["type"] == .string("FeatureCollection") else {
            throw refuse("type", RegionFile.expected("\"FeatureCollection\"", found: json["type"]))
        }
        guard case .array(let features)? = json["features"] else {
            throw refuse("features", RegionFile.expected("an array of Point features", found: json["features"]))
        }
        var regions: [CircularRegion] = []
        var indexByIdentifier: [String: Int] = [:]
        for (index, feature) in features.enumerated() {
            let region = try RegionFile.region(from: feature, index: index, file: file)
            if let first = indexByIdentifier[region.identifier] {
                throw RegionFileError(
                    code: .invalid, file: file, feature: index,
                    field: feature["properties"]?["id"] != nil ? "properties.id" : "properties.name",
                    reason:
                        "\(JSONValue.string(region.identifier).quoted) is already the identifier of feature \(first)")
            }
            indexByIdentifier[region.identifier] = index
            regions.append(region)
        }
        self.json = json
        self.regions = regions
    }

    /// Where the JSON goes wrong. JSONDecoder only says that it does, so the file is parsed
    /// again by JSONSerialization, which names the character.
    private static func explain(_ data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            if var detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String, !detail.isEmpty {
                if detail.hasSuffix(".") { detail.removeLast() }
                return detail.prefix(1).lowercased() + detail.dropFirst()
            }
        }
        return "the JSON decoder refused it"
    }
}
