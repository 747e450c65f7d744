import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches a feed document over HTTP (a conditional request) or from a file.
enum FeedFetcher {
    /// Seconds an HTTP request may take in the foreground, where no window bounds it.
    static let foregroundTimeout: TimeInterval = 20
    /// Seconds a background fetch keeps for itself at the end of its window, to store and
    /// report what it fetched.
    static let windowMargin: TimeInterval = 5

    /// Seconds an HTTP request may take: in the background, the time the system gave less the
    /// margin (a 30 s fetch window allows 25 s); the expiration handler still cancels the
    /// fetch when the system wants its time back sooner. A fixed timeout would end a slow
    /// fetch on its own clock, before a longer window ran out.
    /// - Parameter backgroundTimeRemaining: `Application.backgroundTimeRemaining`, effectively
    ///   unlimited in the foreground.
    static func timeout(backgroundTimeRemaining: TimeInterval) -> TimeInterval {
        guard backgroundTimeRemaining < .greatestFiniteMagnitude else { return foregroundTimeout }
        return max(windowMargin, backgroundTimeRemaining - windowMargin)
    }

    /// Fetches the document.
    /// - Parameters:
    ///   - source: Where from.
    ///   - validators: Validators from the last response, sent as `If-None-Match` and
    ///     `If-Modified-Since`.
    ///   - timeout: Seconds the request may take (``timeout(backgroundTimeRemaining:)``).
    /// - Returns: The document, or ``FeedResponse/notModified``.
    /// - Throws: ``FeedError`` with the status or the transport error, naming the source.
    static func fetch(
        _ source: FeedSource, validators: FeedValidators, timeout: TimeInterval
    ) async throws(FeedError) -> FeedResponse {
        switch source {
        case .file(let path):
            // A file has no validators: the content hash tells whether it changed.
            do {
                return .document(try Data(contentsOf: URL(fileURLWithPath: path)), FeedValidators())
            } catch {
                throw FeedError("cannot read \(path): \(error.localizedDescription)")
            }
        case .http(let url):
            return try await fetch(url, validators: validators, timeout: timeout)
        }
    }

    private static func fetch(
        _ url: URL, validators: FeedValidators, timeout: TimeInterval
    ) async throws(FeedError) -> FeedResponse {
        // No cache: the reader keeps its own validators, so a 304 reaches it as a 304.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = timeout
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue(
            "application/rss+xml, application/atom+xml, application/feed+json, */*;q=0.5", forHTTPHeaderField: "Accept")
        if let etag = validators.etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified = validators.lastModified {
            request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch is CancellationError {
            throw FeedError("\(url.absoluteString): cancelled")
        } catch {
            throw FeedError("\(url.absoluteString): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw FeedError("\(url.absoluteString): not an HTTP response")
        }
        switch http.statusCode {
        case 304:
            return .notModified
        case 200..<300:
            return .document(
                data,
                FeedValidators(
                    etag: http.value(forHTTPHeaderField: "ETag"),
                    lastModified: http.value(forHTTPHeaderField: "Last-Modified")))
        default:
            throw FeedError(
                "\(url.absoluteString): HTTP \(http.statusCode) \(HTTPURLResponse.localizedString(forStatusCode: http.statusCode))"
            )
        }
    }
}
