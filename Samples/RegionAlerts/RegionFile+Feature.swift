import BackgroundKit

extension RegionFile {
    /// Reads one feature as a region.
    /// - Parameters:
    ///   - feature: The feature.
    ///   - index: Its index in `features`, for messages.
    ///   - file: The file's name, for messages.
    /// - Returns: The region.
    /// - Throws: ``RegionFileError`` naming the field that is wrong and why.
    static func region(from feature: JSONValue, index: Int, file: String) throws(RegionFileError)
        -> CircularRegion
    {
        func refuse(_ field: String?, _ reason: String) -> RegionFileError {
            RegionFileError(code: .invalid, file: file, feature: index, field: field, reason: reason)
        }
        guard case .object = feature else {
            throw refuse(nil, "must be a GeoJSON Feature (an object), not \(feature.quoted)")
        }
        guard feature["type"] == .string("Feature") else {
            throw refuse("type", expected("\"Feature\"", found: feature["type"]))
        }
        let center = try coordinate(of: feature["geometry"], refuse: refuse)
        let properties = feature["properties"]
        guard case .object? = properties else {
            throw refuse(
                "properties", expected("an object with \"id\" (or \"name\") and \"radius\"", found: properties))
        }
        let identifierKey = properties?["id"] == nil && properties?["name"] != nil ? "name" : "id"
        let identifier = try self.identifier(
            properties?[identifierKey], field: "properties." + identifierKey, refuse: refuse)
        guard case .number(let radius)? = properties?["radius"], (1...maximumRadius).contains(radius) else {
            throw refuse("properties.radius", expected(radiusRule, found: properties?["radius"]))
        }
        let notifyOnEntry = try flag(properties?["notifyOnEntry"], field: "properties.notifyOnEntry", refuse: refuse)
        let notifyOnExit = try flag(properties?["notifyOnExit"], field: "properties.notifyOnExit", refuse: refuse)
        guard notifyOnEntry || notifyOnExit else {
            throw refuse("properties", "notifyOnEntry and notifyOnExit are both false, so the region would never alert")
        }
        return CircularRegion(
            identifier: identifier, center: center, radius: radius, notifyOnEntry: notifyOnEntry,
            notifyOnExit: notifyOnExit)
    }

    private static func coordinate(
        of geometry: JSONValue?, refuse: (String?, String) -> RegionFileError
    ) throws(RegionFileError) -> Coordinate {
        guard case .object? = geometry else {
            throw refuse("geometry", expected("a Point geometry (an object)", found: geometry))
        }
        guard geometry?["type"] == .string("Point") else {
            throw refuse(
                "geometry.type", expected("\"Point\" (a region is a centre and a radius)", found: geometry?["type"]))
        }
        // GeoJSON allows an altitude as a third number; a region has no use for it.
        guard case .array(let position)? = geometry?["coordinates"], position.count == 2 || position.count == 3,
            case .number(let longitude) = position[0], case .number(let latitude) = position[1]
        else {
            throw refuse(
                "geometry.coordinates", expected("[longitude, latitude] in degrees", found: geometry?["coordinates"]))
        }
        guard (-180...180).contains(longitude) else {
            throw refuse(
                "geometry.coordinates[0]",
                "must be a longitude between -180 and 180, not \(JSONValue.format(longitude))")
        }
        guard (-90...90).contains(latitude) else {
            throw refuse(
                "geometry.coordinates[1]", "must be a latitude between -90 and 90, not \(JSONValue.format(latitude))")
        }
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    private static func identifier(
        _ value: JSONValue?, field: String, refuse: (String?, String) -> RegionFileError
    ) throws(RegionFileError) -> String {
        guard case .string(let identifier)? = value, isAcceptableIdentifier(identifier) else {
            let missing = value == nil ? " (the region's identifier; \"name\" serves too)" : ""
            throw refuse(field, expected(identifierRule, found: value) + missing)
        }
        return identifier
    }

    private static func flag(
        _ value: JSONValue?, field: String, refuse: (String?, String) -> RegionFileError
    ) throws(RegionFileError) -> Bool {
        switch value {
        case nil: return true
        case .bool(let flag)?: return flag
        case let other?: throw refuse(field, "must be true or false, not \(other.quoted)")
        }
    }

    /// `must be X, not Y`, or `must be X, but is missing`.
    static func expected(_ expectation: String, found: JSONValue?) -> String {
        "must be \(expectation), " + (found.map { "not \($0.quoted)" } ?? "but is missing")
    }
}
