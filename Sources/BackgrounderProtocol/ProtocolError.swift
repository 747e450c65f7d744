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
        /// The sender may not make this request: a person's request from an app, an app's
        /// request from anyone but that app (docs/PROTOCOL.md, "Who may send what").
        public static let notPermitted = Code(rawValue: "notPermitted")
        /// A limit was reached (connections, tasks, queued commands, monitored regions, a
        /// crash loop's launch throttle); the message names it.
        public static let limitReached = Code(rawValue: "limitReached")
        /// What the request names does not exist: no loaded bundle with that identifier, no
        /// region or stream of that name for this app, no grants stored for that bundle.
        public static let notFound = Code(rawValue: "notFound")
        /// An app's request on a connection that has not sent `CHECKIN` yet.
        public static let notCheckedIn = Code(rawValue: "notCheckedIn")
        /// A permission is missing: no person granted it (location, microphone), or the app's
        /// `Info.plist` lacks the usage description it needs. Unlike ``notPermitted``, which
        /// is about who sent the request, this is about what the app was allowed.
        public static let notAuthorized = Code(rawValue: "notAuthorized")
        /// The request does not fit the app as it is now or as it declares itself: an audio
        /// category that does not play or record, a paused stream asked to drain, a background
        /// mode the event needs and the app does not declare, a force-quit app.
        public static let invalidState = Code(rawValue: "invalidState")
        /// A service the request needs is not there: gpsd, the sound server, the audio engine.
        /// Trying again later may work.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The daemon failed at something that should have worked (its store could not be
        /// written, a process could not be started); not the client's doing.
        public static let failed = Code(rawValue: "failed")

        /// Every code this version sends, as docs/PROTOCOL.md lists them. A client treats a
        /// code it does not know as ``failed``.
        public static let known: [Code] = [
            .malformedJSON, .missingClass, .unknownClass, .badRequest, .lineTooLong, .versionMismatch, .notPermitted,
            .limitReached, .notFound, .notCheckedIn, .notAuthorized, .invalidState, .unavailable, .failed,
        ]

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
