/// Why a bundle was refused, or what is worth a warning: the file, the key and the reason,
/// printed on one line as `PATH: KEY: reason`.
public struct BundleProblem: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file or directory the problem is in.
    public var path: String
    /// The `Info.plist` key, or the part of the bundle (`Info.plist`, `bundle`), at fault.
    public var key: String
    /// What is wrong, in words a person can act on.
    public var reason: String

    /// Creates a problem report.
    public init(path: String, key: String, reason: String) {
        self.path = path
        self.key = key
        self.reason = reason
    }

    public var description: String { "\(path): \(key): \(reason)" }
}
