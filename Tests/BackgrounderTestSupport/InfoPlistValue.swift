/// A value for an extra Info.plist key of a test bundle, written as plist XML.
public enum InfoPlistValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case strings([String])

    /// The value as plist XML, text escaped.
    var xml: String {
        switch self {
        case .string(let text): "<string>\(Self.escaped(text))</string>"
        case .integer(let number): "<integer>\(number)</integer>"
        case .bool(let flag): flag ? "<true/>" : "<false/>"
        case .strings(let texts): "<array>\(texts.map { "<string>\(Self.escaped($0))</string>" }.joined())</array>"
        }
    }

    /// `key`'s entry: the key, then the value.
    static func entries(_ keys: [String: InfoPlistValue]) -> String {
        keys.keys.sorted().map { "<key>\(escaped($0))</key>\(keys[$0]?.xml ?? "")" }.joined(separator: "\n")
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
