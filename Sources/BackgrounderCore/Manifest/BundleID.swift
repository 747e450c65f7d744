/// An app's bundle identifier (`CFBundleIdentifier`, reverse DNS such as
/// `org.example.HikeRecorder`): the one name the system knows an app by, in the app table,
/// the store, the wire and every capability.
///
/// A type of its own so that it cannot be confused with the other strings that travel beside
/// it (a region's, a task's or a notification's identifier). It carries no rule of its own, so
/// holding one proves nothing about it: ``ManifestValidator`` decides what a bundle may call
/// itself; an identifier read from a request is untrusted and must pass
/// ``BundleIdentifierRules`` (`badRequest` otherwise) before it becomes part of a path; and the
/// daemon answers `notFound` for a name no loaded bundle has. On the wire and in the store it
/// is the plain string.
public struct BundleID: RawRepresentable, Hashable, Comparable, Sendable, Codable, CodingKeyRepresentable,
    CustomStringConvertible, ExpressibleByStringLiteral
{
    /// The identifier as the bundle's `Info.plist` spells it.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// An identifier read from a request, a path or a row.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { self.rawValue = value }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// As a dictionary key it encodes as the string too, so a map by app stays a JSON object.
    public var codingKey: any CodingKey { rawValue.codingKey }

    public init?<T: CodingKey>(codingKey: T) { self.init(rawValue: codingKey.stringValue) }

    public static func < (lhs: BundleID, rhs: BundleID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
