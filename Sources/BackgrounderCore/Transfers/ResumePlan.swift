import Foundation

/// Resuming a download that stopped part way (RFC 9110 §14 and §13.1.5): what to ask for,
/// what the answer means, and the last check before a file is called finished.
///
/// The validator is the `ETag` (or, without one, the `Last-Modified`) the first response
/// carried, stored beside the partial file. `If-Range` makes the server send the rest only
/// if the resource is still that version, and the whole of the new version otherwise, so
/// bytes of two versions are never joined.
public enum ResumePlan {
    /// The partial download on disk.
    public struct Partial: Sendable, Hashable, Codable {
        /// Body bytes already written.
        public var bytes: Int64
        /// The `ETag` or `Last-Modified` of the response they came from.
        public var validator: String?

        /// A partial download.
        public init(bytes: Int64, validator: String?) {
            self.bytes = bytes
            self.validator = validator
        }

        /// Whether the bytes can be resumed: some, and a validator `If-Range` accepts (a weak
        /// `ETag` it does not: RFC 9110 forbids it there, it does not promise the same bytes).
        public var isResumable: Bool {
            guard bytes > 0, let validator, !validator.isEmpty else { return false }
            return !validator.hasPrefix("W/")
        }
    }

    /// What a response to the (possibly ranged) request means for the file.
    public enum Decision: Sendable, Hashable {
        /// Write the body at this offset: 0 for a fresh download, the partial's length for a
        /// resumed one. `total` is the whole length when the server said.
        case append(at: Int64, total: Int64?)
        /// The body is the whole resource (the validator changed, or the server ignores
        /// ranges): truncate and write from 0. The discarded bytes are fetched again.
        case restart(discarded: Int64)
        /// The server could not serve our range (416) or sent one for another version: truncate
        /// and ask again without `Range`.
        case restartWithoutRange(discarded: Int64)
        /// A 416 saying the resource is exactly as long as what we hold: the partial is the
        /// whole file (the daemon stopped between the last byte and marking it done).
        case alreadyComplete(total: Int64)
        /// Not an answer about the bytes (an error status): keep the partial, and classify the
        /// response as ``TransferFailure/response(status:headers:)``.
        case notAResume
        /// The response cannot be used; the reason says why, for the error.
        case fail(String)
    }

    /// The headers that ask for the rest of a partial download: `Range: bytes=N-` and
    /// `If-Range: V`; none when there is nothing to resume.
    public static func requestHeaders(for partial: Partial?) -> [String: String] {
        guard let partial, partial.isResumable, let validator = partial.validator else { return [:] }
        return ["Range": "bytes=\(partial.bytes)-", "If-Range": validator]
    }

    /// What a response means.
    ///
    /// - Parameters:
    ///   - partial: What was on disk when the request was made; `nil` or not resumable when it
    ///     was sent without `Range`.
    ///   - status: The response's status.
    ///   - headers: Its headers, names in lower case (`content-range`, `content-length`, `etag`).
    public static func decide(partial: Partial?, status: Int, headers: [String: String]) -> Decision {
        let ranged = partial?.isResumable == true
        let offset = ranged ? partial?.bytes ?? 0 : 0
        let held = partial?.bytes ?? 0
        let length = headers["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        switch status {
        case 206:
            guard ranged else { return .fail("206 Partial Content to a request without Range") }
            guard let contentRange = headers["content-range"], let range = ContentRange(contentRange),
                let first = range.first, let last = range.last
            else { return .fail("206 with a malformed Content-Range: \(headers["content-range"] ?? "none")") }
            guard first == offset else {
                return .fail("206 starts at byte \(first), not at \(offset) where the partial download ends")
            }
            if let length, length != last - first + 1 {
                return .fail("Content-Length \(length) does not match Content-Range \(first)-\(last)")
            }
            // A strong ETag that differs means another version's bytes, whatever If-Range
            // should have done: never join them. (A server may send less than asked; the
            // final length check asks for the rest.)
            if let etag = headers["etag"], let validator = partial?.validator, validator.hasPrefix("\""),
                etag != validator
            {
                return .restartWithoutRange(discarded: held)
            }
            return .append(at: offset, total: range.total)
        case 416:
            if let contentRange = headers["content-range"], let range = ContentRange(contentRange),
                range.first == nil, let total = range.total, ranged, total == offset
            {
                return .alreadyComplete(total: total)
            }
            return .restartWithoutRange(discarded: held)
        case 200..<300:
            // The whole resource: what was held, resumable or not, is thrown away.
            return held > 0 ? .restart(discarded: held) : .append(at: 0, total: length)
        default:
            return .notAResume
        }
    }

    /// Whether a download's file holds exactly its body; a short or long file is never
    /// reported finished. `expectedTotal` is the length the server announced (`nil` or
    /// negative when it did not, e.g. chunked: then any length is the body).
    public static func verify(bytesOnDisk: Int64, expectedTotal: Int64?) -> Verification {
        guard let expectedTotal, expectedTotal >= 0 else { return .complete }
        if bytesOnDisk < expectedTotal { return .short(missing: expectedTotal - bytesOnDisk) }
        if bytesOnDisk > expectedTotal { return .long(extra: bytesOnDisk - expectedTotal) }
        return .complete
    }

    /// The final check's answer.
    public enum Verification: Sendable, Hashable, CustomStringConvertible {
        /// Exactly the announced length.
        case complete
        /// Fewer bytes than announced: resume for the rest.
        case short(missing: Int64)
        /// More bytes than announced: the file is corrupt (two writers, or a server that
        /// lied); the transfer fails.
        case long(extra: Int64)

        public var description: String {
            switch self {
            case .complete: "complete"
            case .short(let missing): "\(missing) bytes short of the announced length"
            case .long(let extra): "\(extra) bytes longer than the announced length"
            }
        }
    }
}

/// A `Content-Range` value (RFC 9110 §14.4): `bytes first-last/total`, `bytes first-last/*`
/// or, in a 416, `bytes */total`.
public struct ContentRange: Sendable, Hashable {
    /// The first byte's offset; `nil` in the unsatisfied form.
    public var first: Int64?
    /// The last byte's offset, inclusive.
    public var last: Int64?
    /// The whole length, when known.
    public var total: Int64?

    /// Parses a value; `nil` when it is malformed (a unit other than bytes, last before first,
    /// a range past the total, signs or spaces inside numbers).
    public init?(_ text: String) {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("bytes ") else { return nil }
        let parts = text.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[1] == "*" {
            total = nil
        } else {
            guard let total = Self.number(parts[1]) else { return nil }
            self.total = total
        }
        if parts[0] == "*" {
            guard total != nil else { return nil }
            first = nil
            last = nil
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last
        else { return nil }
        if let total, last >= total { return nil }
        self.first = first
        self.last = last
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(text)
    }
}
