extension String {
    /// The text made safe for XML element content and attribute values: markup characters as
    /// entities, and characters XML 1.0 forbids (most control characters) left out, since a
    /// GPX reader rejects the whole file for one of them.
    var xmlEscaped: String {
        var escaped = ""
        escaped.unicodeScalars.reserveCapacity(unicodeScalars.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\t", "\n", "\r": escaped.unicodeScalars.append(scalar)
            case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": continue
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
