import BackgrounderCore
import Foundation

/// The documents a ``TransferServer`` serves and the faults set on its paths, shared by the
/// test (which changes them while the server runs) and every connection.
final class DocumentStore: Sendable {
    private struct Contents {
        var documents: [String: Document] = [:]
        var faults: [String: [FaultRule]] = [:]
        /// Versions made so far: each new one gets the next number in its `ETag` and a date a
        /// second later in `Last-Modified`, so either validator tells versions apart.
        var versions = 0

        mutating func nextVersion(size: Int64) -> (etag: String, lastModified: String) {
            versions += 1
            let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(versions))
            return ("\"v\(versions)-\(size)\"", LocalHTTPServer.httpDate(date))
        }
    }

    private let contents = Locked(Contents())

    /// Serves `body` at `path` from now on, as a new version.
    func serve(_ path: String, body: Document.Body, size: Int64, contentType: String) {
        contents.withLock { contents in
            let (etag, lastModified) = contents.nextVersion(size: size)
            contents.documents[path] = Document(
                body: body, size: size, contentType: contentType, etag: etag, lastModified: lastModified)
        }
    }

    /// Stops serving `path`.
    func remove(_ path: String) {
        _ = contents.withLock { $0.documents.removeValue(forKey: path) }
    }

    /// The document at `path` now.
    func document(at path: String) -> Document? {
        contents.withLock { $0.documents[path] }
    }

    /// Replaces the `ETag` of the document at `path`.
    /// - Returns: Whether there was a document.
    func setETag(_ etag: String, for path: String) -> Bool {
        contents.withLock { contents in
            guard contents.documents[path] != nil else { return false }
            contents.documents[path]?.etag = etag
            return true
        }
    }

    func inject(_ fault: TransferServer.Fault, at path: String, times: Int?) {
        contents.withLock { $0.faults[path, default: []].append(FaultRule(fault: fault, remaining: times)) }
    }

    func clearFaults(at path: String?) {
        contents.withLock { contents in
            if let path { contents.faults[path] = nil } else { contents.faults = [:] }
        }
    }

    /// The faults that apply to one more request for `path`, each counted as used.
    private static func take(_ path: String, from contents: inout Contents) -> [TransferServer.Fault] {
        guard var rules = contents.faults[path] else { return [] }
        let active = rules.map(\.fault)
        for index in rules.indices { rules[index].remaining? -= 1 }
        rules.removeAll { $0.remaining.map { $0 <= 0 } ?? false }
        contents.faults[path] = rules.isEmpty ? nil : rules
        return active
    }

    /// Decides the answer to a `GET` or `HEAD` of `path`, using up one request of each fault.
    func plan(method: String, path: String, headers: [String: String]) -> ResponsePlan {
        contents.withLock { contents in
            let faults = Self.take(path, from: &contents)
            let document = contents.documents[path]
            let plan = ResponsePlan.answer(
                method: method, path: path, headers: headers, document: document, faults: faults)
            if let document, faults.contains(.changeETag) {
                let (etag, lastModified) = contents.nextVersion(size: document.size)
                contents.documents[path]?.etag = etag
                contents.documents[path]?.lastModified = lastModified
            }
            return plan
        }
    }

    /// The faults for one upload to `path`, each counted as used.
    func uploadFaults(for path: String) -> [TransferServer.Fault] {
        contents.withLock { contents in Self.take(path, from: &contents) }
    }
}
