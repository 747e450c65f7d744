import Foundation

/// One `Info.plist` value, written as XML.
enum PlistValue: Sendable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case strings([String])
    /// XML written verbatim, for shapes the other cases cannot express.
    case raw(String)

    var xml: String {
        switch self {
        case .string(let text): "<string>\(Self.escaped(text))</string>"
        case .integer(let number): "<integer>\(number)</integer>"
        case .bool(let flag): flag ? "<true/>" : "<false/>"
        case .strings(let items): "<array>" + items.map { PlistValue.string($0).xml }.joined() + "</array>"
        case .raw(let xml): xml
        }
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}

/// An XML `Info.plist` built key by key, in order, so a test can drop or retype one key.
struct InfoPlistText: Sendable {
    var entries: [(key: String, value: PlistValue)]

    /// The three required keys with valid values.
    static let minimal = InfoPlistText(entries: [
        ("CFBundleIdentifier", .string("org.example.test")),
        ("CFBundleName", .string("Test")),
        ("CFBundleExecutable", .string("Test")),
    ])

    /// A copy with `key` set to `value`, replacing an earlier value in place.
    func setting(_ key: String, _ value: PlistValue) -> InfoPlistText {
        var copy = self
        if let index = copy.entries.firstIndex(where: { $0.key == key }) {
            copy.entries[index].value = value
        } else {
            copy.entries.append((key, value))
        }
        return copy
    }

    /// A copy without `key`.
    func removing(_ key: String) -> InfoPlistText {
        InfoPlistText(entries: entries.filter { $0.key != key })
    }

    var xml: String {
        let body = entries.map { "    <key>\($0.key)</key>\n    \($0.value.xml)\n" }.joined()
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \(body)</dict>
            </plist>

            """
    }
}
