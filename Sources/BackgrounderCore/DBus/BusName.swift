/// D-Bus names derived from bundle identifiers.
public enum BusName {
    /// MPRIS's prefix: every media player owns a name under it.
    public static let mprisPrefix = "org.mpris.MediaPlayer2."

    /// The MPRIS name of an app's player, `org.mpris.MediaPlayer2.backgrounder.<identifier>`
    /// with each element made valid: characters outside `[A-Za-z0-9_-]` become `_`, and an
    /// element that starts with a digit gets a leading `_`, as the bus requires.
    public static func mediaPlayer(for identifier: String) -> String {
        mprisPrefix + "backgrounder." + elements(of: identifier)
    }

    /// `identifier` as valid bus-name elements, joined by dots.
    public static func elements(of identifier: String) -> String {
        identifier.split(separator: ".", omittingEmptySubsequences: true).map { element in
            var clean = String(
                element.unicodeScalars.map { scalar -> Character in
                    scalar.isASCII
                        && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
                            || scalar == "-")
                        ? Character(scalar) : "_"
                })
            if clean.first?.isNumber == true { clean = "_" + clean }
            return clean
        }.joined(separator: ".")
    }
}
