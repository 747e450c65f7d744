import NIOCore

/// What the server will send for one request, decided from the document and the path's
/// faults before a byte goes out.
struct ResponsePlan: Sendable {
    /// The body to send.
    enum Body: Sendable {
        case none
        /// A short text: errors, redirects, upload receipts.
        case text(String)
        /// `length` bytes of a document from `offset`.
        case document(Document.Body, offset: Int64, length: Int64)
    }

    /// How the response ends once the body (or its part that goes out) is sent.
    enum Ending: Sendable, Hashable {
        /// `Content-Length` bytes, then the end; the connection stays open if the client wants.
        case complete
        /// After this many body bytes the connection closes.
        case close(after: Int64)
        /// After this many body bytes nothing more is sent; the connection stays open.
        case stall(after: Int64)
        /// After the whole body, this many bytes more, then the connection closes.
        case overrun(extra: Int)
    }

    var status: Int
    var headers: [(String, String)] = []
    var body: Body = .none
    /// The drip rate, when dripping.
    var bytesPerSecond: Int?
    var ending: Ending = .complete
    /// Whether to say `Connection: close` and close after the response.
    var closesConnection = false

    /// A short text answer.
    static func text(_ status: Int, _ text: String, headers: [(String, String)] = []) -> ResponsePlan {
        ResponsePlan(
            status: status,
            headers: headers + [
                ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "\(text.utf8.count)"),
            ],
            body: .text(text))
    }
}
