/// The person's well-known folders as xdg-user-dirs records them (`~/.config/user-dirs.dirs`:
/// `XDG_MUSIC_DIR="$HOME/Music"`), which desktops translate (`$HOME/Musik`).
public enum UserDirectories {
    /// The music folder: `XDG_MUSIC_DIR` from the file's text, `$HOME` expanded; `~/Music`
    /// without one. A value that is the home itself means the person has no music folder
    /// (xdg-user-dirs' way of disabling one), and so does a relative one.
    /// - Parameters:
    ///   - userDirs: The text of `user-dirs.dirs`, if there is one.
    ///   - home: The person's home directory.
    public static func music(userDirs: String?, home: String) -> String? {
        let home = home.hasSuffix("/") && home.count > 1 ? String(home.dropLast()) : home
        guard let userDirs else { return home + "/Music" }
        for line in userDirs.split(whereSeparator: \.isNewline) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix("XDG_MUSIC_DIR=") else { continue }
            var value = String(trimmed.dropFirst("XDG_MUSIC_DIR=".count))
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            if value.hasPrefix("$HOME") { value = home + value.dropFirst("$HOME".count) }
            while value.count > 1 && value.hasSuffix("/") { value.removeLast() }
            guard value.hasPrefix("/"), value != home else { return nil }
            return value
        }
        return home + "/Music"
    }
}
