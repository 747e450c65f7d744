import BackgroundKit
import Foundation
import Testing

@testable import RegionAlerts

@Suite("RegionAlerts' GeoJSON regions", .timeLimit(.minutes(5)))
struct RegionFileTests {
    /// A feature as people write them; `properties` and `coordinates` are spliced in as JSON text.
    private static func feature(_ properties: String, coordinates: String = "[7.4474, 46.948]") -> String {
        #"{"type": "Feature", "geometry": {"type": "Point", "coordinates": \#(coordinates)}, "properties": \#(properties)}"#
    }

    private static func collection(_ features: String...) -> String {
        #"{"type": "FeatureCollection", "features": [\#(features.joined(separator: ", "))]}"#
    }

    private static func parse(_ text: String) throws(RegionFileError) -> RegionFile {
        try RegionFile(data: Data(text.utf8), file: "places.geojson")
    }

    @Test("a good file: id or name, radius, notify flags defaulting to true, an altitude ignored")
    func goodFile() throws {
        let text = Self.collection(
            Self.feature(#"{"id": "home", "radius": 150, "color": "red"}"#),
            Self.feature(
                #"{"name": "Büro Bern", "radius": 80.5, "notifyOnEntry": false}"#, coordinates: "[7.44, 46.95, 540]"),
            Self.feature(
                #"{"id": "lake", "name": "ignored", "radius": 100000, "notifyOnExit": false}"#,
                coordinates: "[-180, -90]")
        )
        let file = try Self.parse(text)
        #expect(
            file.regions == [
                CircularRegion(
                    identifier: "home", center: Coordinate(latitude: 46.948, longitude: 7.4474), radius: 150),
                CircularRegion(
                    identifier: "Büro Bern", center: Coordinate(latitude: 46.95, longitude: 7.44), radius: 80.5,
                    notifyOnEntry: false),
                CircularRegion(
                    identifier: "lake", center: Coordinate(latitude: -90, longitude: -180), radius: 100_000,
                    notifyOnExit: false),
            ])
        #expect(try Self.parse(Self.collection()).regions.isEmpty)
    }

    /// Each kind of bad input, and the message a person gets for it.
    static let badInputs: [(text: String, message: String)] = [
        ("[]", "places.geojson: must be a GeoJSON FeatureCollection (an object), not []"),
        (
            #"{"type": "Feature"}"#,
            #"places.geojson: type: must be "FeatureCollection", not "Feature""#
        ),
        (
            #"{"type": "FeatureCollection"}"#,
            "places.geojson: features: must be an array of Point features, but is missing"
        ),
        (
            collection("5"),
            "places.geojson: feature 0: must be a GeoJSON Feature (an object), not 5"
        ),
        (
            collection(#"{"geometry": null}"#),
            #"places.geojson: feature 0: type: must be "Feature", but is missing"#
        ),
        (
            collection(#"{"type": "Feature", "geometry": null, "properties": {"id": "a", "radius": 5}}"#),
            "places.geojson: feature 0: geometry: must be a Point geometry (an object), not null"
        ),
        (
            collection(#"{"type": "Feature", "geometry": {"type": "Polygon", "coordinates": []}}"#),
            #"places.geojson: feature 0: geometry.type: must be "Point" (a region is a centre and a radius), not "Polygon""#
        ),
        (
            collection(feature(#"{"id": "a", "radius": 5}"#, coordinates: "[7.4]")),
            "places.geojson: feature 0: geometry.coordinates: must be [longitude, latitude] in degrees, not [7.4]"
        ),
        (
            collection(feature(#"{"id": "a", "radius": 5}"#, coordinates: #"["7.4", 46.9]"#)),
            #"places.geojson: feature 0: geometry.coordinates: must be [longitude, latitude] in degrees, not ["7.4", 46.9]"#
        ),
        (
            collection(feature(#"{"id": "a", "radius": 5}"#, coordinates: "[200, 46.9]")),
            "places.geojson: feature 0: geometry.coordinates[0]: must be a longitude between -180 and 180, not 200"
        ),
        (
            collection(feature(#"{"id": "a", "radius": 5}"#, coordinates: "[7.4, -95.5]")),
            "places.geojson: feature 0: geometry.coordinates[1]: must be a latitude between -90 and 90, not -95.5"
        ),
        (
            collection(#"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [7, 46]}}"#),
            #"places.geojson: feature 0: properties: must be an object with "id" (or "name") and "radius", but is missing"#
        ),
        (
            collection(feature(#"{"radius": 5}"#)),
            "places.geojson: feature 0: properties.id: must be a non-empty string of at most 256 bytes without control "
                + #"characters, but is missing (the region's identifier; "name" serves too)"#
        ),
        (
            collection(feature(#"{"id": 5, "radius": 5}"#)),
            "places.geojson: feature 0: properties.id: must be a non-empty string of at most 256 bytes without control "
                + "characters, not 5"
        ),
        (
            collection(feature(#"{"name": "", "radius": 5}"#)),
            "places.geojson: feature 0: properties.name: must be a non-empty string of at most 256 bytes without "
                + #"control characters, not """#
        ),
        (
            collection(feature(#"{"id": "two\nlines", "radius": 5}"#)),
            "places.geojson: feature 0: properties.id: must be a non-empty string of at most 256 bytes without "
                + #"control characters, not "two\nlines""#
        ),
        (
            collection(
                feature(#"{"id": "a", "radius": 5}"#), feature(#"{"id": "b", "radius": 5}"#),
                feature(#"{"id": "c", "radius": "big"}"#)),
            #"places.geojson: feature 2: properties.radius: must be a number of metres between 1 and 100000, not "big""#
        ),
        (
            collection(feature(#"{"id": "a"}"#)),
            "places.geojson: feature 0: properties.radius: must be a number of metres between 1 and 100000, "
                + "but is missing"
        ),
        (
            collection(feature(#"{"id": "a", "radius": 0.5}"#)),
            "places.geojson: feature 0: properties.radius: must be a number of metres between 1 and 100000, not 0.5"
        ),
        (
            collection(feature(#"{"id": "a", "radius": 100001}"#)),
            "places.geojson: feature 0: properties.radius: must be a number of metres between 1 and 100000, not 100001"
        ),
        (
            collection(feature(#"{"id": "a", "radius": 5, "notifyOnEntry": "yes"}"#)),
            #"places.geojson: feature 0: properties.notifyOnEntry: must be true or false, not "yes""#
        ),
        (
            collection(feature(#"{"id": "a", "radius": 5, "notifyOnExit": 1}"#)),
            "places.geojson: feature 0: properties.notifyOnExit: must be true or false, not 1"
        ),
        (
            collection(feature(#"{"id": "a", "radius": 5, "notifyOnEntry": false, "notifyOnExit": false}"#)),
            "places.geojson: feature 0: properties: notifyOnEntry and notifyOnExit are both false, so the region "
                + "would never alert"
        ),
        (
            collection(feature(#"{"id": "home", "radius": 5}"#), feature(#"{"name": "home", "radius": 9}"#)),
            #"places.geojson: feature 1: properties.name: "home" is already the identifier of feature 0"#
        ),
    ]

    @Test(
        "each kind of bad input is refused with a message naming the feature, the field and why", arguments: badInputs)
    func badInput(_ input: (text: String, message: String)) {
        #expect(throws: RegionFileError.self) { try Self.parse(input.text) }
        do {
            _ = try Self.parse(input.text)
        } catch {
            #expect(error.description == input.message)
            #expect(error.code == .invalid)
        }
    }

    @Test("text that is not JSON is refused as such, with where the parser stopped")
    func notJSON() {
        for text in [#"{"type": "FeatureCollection", "features": [1, "#, "", "\u{FEFF}nope"] {
            do {
                _ = try Self.parse(text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.code == .notJSON)
                #expect(error.description.hasPrefix("places.geojson: not JSON: "))
                #expect(error.description.count > "places.geojson: not JSON: ".count)
            }
        }
    }

    @Test("adding and removing keep the other features and their extra members; adding replaces the same id")
    func editing() throws {
        let original = try Self.parse(
            Self.collection(
                Self.feature(#"{"id": "home", "radius": 150, "color": "red"}"#),
                Self.feature(#"{"name": "office", "radius": 80}"#)))
        let office = CircularRegion(
            identifier: "office", center: Coordinate(latitude: -33.9, longitude: 151.2), radius: 500,
            notifyOnEntry: false)
        let added = try original.adding(office, file: "add")
        #expect(added.regions.map(\.identifier) == ["home", "office"])
        #expect(added.regions.last == office)

        let reread = try RegionFile(data: added.data, file: "regions.geojson")
        #expect(reread.regions == added.regions)
        #expect(reread.json["features"] == added.json["features"])
        guard case .array(let features)? = reread.json["features"] else {
            Issue.record("no features")
            return
        }
        #expect(features.first?["properties"]?["color"] == .string("red"))

        let removed = try #require(reread.removing("home"))
        #expect(removed.regions == [office])
        #expect(try RegionFile(data: removed.data, file: "regions.geojson").regions == [office])
        #expect(removed.removing("home") == nil)
        #expect(try RegionFile.empty.adding(office, file: "add").regions == [office])
    }
}
