/// Why a region was refused.
public struct RegionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong and with which region, for a person to read.
    public var description: String

    /// An error about one field of one region.
    init(region identifier: String, _ problem: String) {
        // An identifier too long to be accepted is also too long to quote in full.
        let shown = identifier.count > 64 ? String(identifier.prefix(64)) + "…" : identifier
        description = "region '\(shown)': \(problem)"
    }
}

extension CircularRegion {
    /// The longest identifier accepted, in UTF-8 bytes (iOS documents no limit; this keeps
    /// storage rows and protocol messages small).
    static let maximumIdentifierBytes = 256

    /// Checks what the monitor needs of a region.
    /// - Parameter maximumRadius: The largest radius accepted, in metres.
    /// - Throws: ``RegionError`` naming the region and the field.
    func validate(maximumRadius: Double) throws(RegionError) {
        if identifier.isEmpty {
            throw RegionError(region: identifier, "identifier must not be empty")
        }
        let bytes = identifier.utf8.count
        if bytes > Self.maximumIdentifierBytes {
            throw RegionError(
                region: identifier,
                "identifier must be at most \(Self.maximumIdentifierBytes) UTF-8 bytes, not \(bytes)")
        }
        if !center.isValid {
            throw RegionError(
                region: identifier,
                "center must have latitude in -90...90 and longitude in -180...180, not "
                    + "\(Self.format(center.latitude)), \(Self.format(center.longitude))")
        }
        if !radius.isFinite || radius < 1 || radius > maximumRadius {
            throw RegionError(
                region: identifier,
                "radius must be between 1 and \(Self.format(maximumRadius)) m, not \(Self.format(radius))")
        }
    }

    /// A number as a person writes it: `-3`, not `-3.0`.
    private static func format(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return String(value)
    }
}
