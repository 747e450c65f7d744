/// Why the daemon could not start or do what was asked, with the file or setting at fault.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    /// A machine-readable kind.
    public enum Code: String, Sendable {
        case socket, stateStore, directory, configuration
    }

    /// The kind of failure.
    public var code: Code
    /// The path or setting involved.
    public var path: String
    /// What went wrong.
    public var reason: String

    package init(_ code: Code, path: String, _ reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
