extension String {
    /// The string with every character that could steer a terminal or forge a line written
    /// as a visible escape: C0 controls (newline and tab too, so one log record stays one
    /// line and a table cell stays one cell), DEL, C1 controls (U+0080–U+009F, which some
    /// terminals take as CSI and OSC), the line and paragraph separators, and the bidi
    /// overrides and isolates that reorder what is shown.
    ///
    /// For text an app controls (task names, region identifiers, now-playing titles, bundle
    /// names) on its way to the daemon's log or `bgctl`'s output: an app must not be able to
    /// retitle the person's terminal, clear it, or write a fake log line. Everything else,
    /// non-ASCII letters included, passes unchanged.
    ///
    /// Controls become `\n`, `\r`, `\t` or `\u{XX}` (the code point in hex), the same notation
    /// Swift string literals use, so the result reads as what was sent.
    public var escapedForTerminal: String {
        guard unicodeScalars.contains(where: Self.needsEscaping) else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 16)
        for scalar in unicodeScalars {
            guard Self.needsEscaping(scalar) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default: escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return escaped
    }

    private static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Line and paragraph separators; bidi embeddings, overrides and isolates.
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
