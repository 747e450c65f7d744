extension TransferServer {
    /// A request as the server saw it and what it answered, for tests to check what a client
    /// asked (the resume's `Range`, its `If-Range`) and got. It is in ``TransferServer/requests``
    /// from its head on, and its counts grow while the body goes out.
    public struct Request: Sendable, Hashable {
        /// Where the response stands.
        public enum Outcome: Sendable, Hashable {
            /// Still being answered (or received, for an upload).
            case inProgress
            /// Answered in full (for a `longBody` fault: with the extra bytes).
            case complete
            /// The connection closed before the response was complete: a fault cut it or the
            /// client went away.
            case closedEarly
        }

        /// The connection's number, from 1 in the order they were accepted: requests on one
        /// keep-alive connection share it.
        public var connection: Int
        /// `GET`, `HEAD`, `PUT`...
        public var method: String
        /// The request target, as sent (a path, with its query).
        public var path: String
        /// Every header, names in lower case; a repeated header's values joined with ", ".
        public var headers: [String: String]
        /// The status answered; 0 until the response head went out.
        public var status: Int
        /// Body bytes handed to the network so far.
        public var bodyBytesSent: Int64
        /// Body bytes received (uploads).
        public var bodyBytesReceived: Int64
        /// Where the response stands.
        public var outcome: Outcome

        /// The `Range` header, when sent.
        public var range: String? { headers["range"] }
        /// The `If-Range` header, when sent.
        public var ifRange: String? { headers["if-range"] }
    }

    /// A body that arrived in full by `PUT` or `POST` under `/upload/`.
    public struct Upload: Sendable, Hashable {
        /// `PUT` or `POST`.
        public var method: String
        /// The request target, as sent.
        public var path: String
        /// Where the body was stored.
        public var file: String
        /// Its length.
        public var bytes: Int64
        /// Its SHA-256, lower-case hex.
        public var sha256: String
        /// The request's headers, names in lower case.
        public var headers: [String: String]
    }
}
