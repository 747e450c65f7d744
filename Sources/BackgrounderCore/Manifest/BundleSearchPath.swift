/// Where the daemon looks for bundles when no `--bundles` is given, after the XDG base
/// directory specification: the user's data directory first, then each system data
/// directory in the order `$XDG_DATA_DIRS` lists them. An earlier directory wins over a
/// later one for a bundle identifier both hold, as `PATH` does for a command name, so a
/// user's copy of an app overrides the packaged one.
public enum BundleSearchPath {
    /// The path below each data directory: `backgrounder/bundles`.
    public static let subdirectory = "backgrounder/bundles"

    /// The search path in words, for `--help` and the documentation.
    public static let summary =
        "$XDG_DATA_HOME/\(subdirectory) (default ~/.local/share/\(subdirectory)), then \(subdirectory) in each $XDG_DATA_DIRS entry (default /usr/local/share:/usr/share)"

    /// The system data directories when `$XDG_DATA_DIRS` is unset or empty.
    public static let defaultDataDirectories = ["/usr/local/share", "/usr/share"]

    /// The bundle directories, in search order, for an environment.
    ///
    /// As the specification asks, a relative path in either variable is ignored (it would
    /// depend on the daemon's working directory), and so is an empty entry; a directory
    /// named twice is searched once, where it first appears.
    /// - Parameters:
    ///   - environment: The process environment (`XDG_DATA_HOME`, `XDG_DATA_DIRS`).
    ///   - home: The user's home directory, for the `~/.local/share` default.
    /// - Returns: Absolute directories, none with a trailing slash.
    public static func directories(environment: [String: String], home: String) -> [String] {
        var dataHome = environment["XDG_DATA_HOME"].flatMap(absolute)
        if dataHome == nil { dataHome = absolute(home).map { $0 == "/" ? "/.local/share" : $0 + "/.local/share" } }
        let listed = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").compactMap { absolute(String($0)) }
        let dataDirectories = listed.isEmpty ? defaultDataDirectories : listed
        var seen: Set<String> = []
        var result: [String] = []
        for base in (dataHome.map { [$0] } ?? []) + dataDirectories {
            let directory = (base == "/" ? "" : base) + "/" + subdirectory
            if seen.insert(directory).inserted { result.append(directory) }
        }
        return result
    }

    /// The path without trailing slashes, or `nil` unless it is absolute.
    private static func absolute(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return nil }
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
