import BackgroundKit

/// BackgroundKit's `JSONValue` (any JSON value) checks a GeoJSON file field by field with
/// messages that say which field was wrong, and edits it without losing the members this app
/// does not read. These are the words its messages quote values with.
extension JSONValue {
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
