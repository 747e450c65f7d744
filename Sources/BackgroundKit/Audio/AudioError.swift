/// Why an audio request failed.
public struct AudioError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the field or request at fault.
    public var description: String

    /// Creates an error.
    public init(_ description: String) { self.description = description }
}
