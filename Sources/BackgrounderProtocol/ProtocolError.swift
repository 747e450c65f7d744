/// A problem with a message, sent back to the client as an `ERROR` object.
public struct ProtocolError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A machine-readable kind of problem.
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The line is not a JSON object.
        public static let malformedJSON = Code(rawValue: "malformedJSON")
        /// The object has no `class` field.
        public static let missingClass = Code(rawValue: "missingClass")
        /// The `class` is not one the daemon knows.
        public static let unknownClass = Code(rawValue: "unknownClass")
        /// A field is missing or has the wrong type.
        public static let badRequest = Code(rawValue: "badRequest")
        /// The line is longer than ``WireLimits/maximumLineLength``.
        public static let lineTooLong = Code(rawValue: "lineTooLong")
        /// The client's protocol major version differs from the daemon's.
        public static let versionMismatch = Code(rawValue: "versionMismatch")
        /// The daemon could not do what was asked.
        public static let failed = Code(rawValue: "failed")

        public var description: String { rawValue }
    }

    /// The kind of problem.
    public var code: Code
    /// What was wrong, naming the field or class.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
