import Foundation

/// A JSON value from a peer's record file: what the peer received, as plain JSON.
public enum RecordValue: Sendable, Equatable, Decodable, CustomStringConvertible {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([RecordValue])
    case object([String: RecordValue])
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([RecordValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: RecordValue].self))
        }
    }

    /// The string, if this is one.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an integer, if this is a whole number.
    public var int: Int? {
        if case .number(let value) = self, value.rounded() == value, abs(value) < 0x1p53 { return Int(value) }
        return nil
    }

    /// The Boolean, if this is one.
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var array: [RecordValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var object: [String: RecordValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Decoded base64 (peers record byte arrays, `ay`, that way).
    public var bytes: [UInt8]? {
        string.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) }
    }

    public var description: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .number(let value): value.rounded() == value && abs(value) < 0x1p53 ? "\(Int(value))" : "\(value)"
        case .bool(let value): "\(value)"
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .null: "null"
        }
    }
}

/// One line of a peer's record file: one thing the peer received (a method call and its
/// arguments) or did (a delivery), named by `event`.
public struct PeerRecord: Sendable, CustomStringConvertible {
    /// Every field of the line.
    public let fields: [String: RecordValue]

    /// What happened: the method called (`Notify`, `Register`...) or the peer's own event.
    public var event: String { fields["event"]?.string ?? "" }

    /// A field's value.
    public subscript(_ key: String) -> RecordValue? { fields[key] }

    public var description: String { RecordValue.object(fields).description }

    /// Reads a record file: one JSON object a line; a line still being written is left for
    /// the next read.
    /// - Parameter path: The file.
    /// - Returns: The complete lines' records, oldest first (none if the file is missing).
    public static func read(_ path: String) -> [PeerRecord] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        let decoder = JSONDecoder()
        return text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            guard let data = line.data(using: .utf8),
                let fields = try? decoder.decode([String: RecordValue].self, from: data)
            else { return nil }
            return PeerRecord(fields: fields)
        }
    }
}
