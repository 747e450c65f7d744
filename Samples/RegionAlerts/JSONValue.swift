/// Any JSON value, so a GeoJSON file can be checked field by field with messages that say
/// which field was wrong, and edited without losing the members this app does not read.
enum JSONValue: Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Bool first: a decoder that reads `true` as a number must not get the chance.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A member of an object; `nil` for a missing member or when this is not an object.
    subscript(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The value as a message quotes it: `"big"`, `12.5`, `true`, `null`, `[7.4]`, `an object`.
    var quoted: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value): return JSONValue.format(value)
        case .string(let value):
            // A long string is cut: the message is about where it is, not all of it.
            let shown = value.count > 40 ? value.prefix(40) + "…" : Substring(value)
            var escaped = ""
            for character in shown {
                switch character {
                case "\"": escaped += "\\\""
                case "\\": escaped += "\\\\"
                case "\n": escaped += "\\n"
                case "\t": escaped += "\\t"
                default: escaped.append(character)
                }
            }
            return "\"" + escaped + "\""
        case .array(let values):
            let scalars = values.allSatisfy { value in
                switch value {
                case .array, .object: return false
                default: return true
                }
            }
            guard scalars, values.count <= 4 else { return "an array of \(values.count) values" }
            return "[" + values.map(\.quoted).joined(separator: ", ") + "]"
        case .object: return "an object"
        }
    }

    /// A number as a person writes it: `200`, not `200.0`.
    static func format(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return String(value)
    }
}
