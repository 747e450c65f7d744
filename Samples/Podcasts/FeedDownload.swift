import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Fetches the feed in the foreground with FoundationNetworking: it is small, and the app is
/// in front when a person opens it. (This file does not import BackgroundKit, whose
/// background `URLSession` has the same name.)
enum FeedDownload {
    /// Fetches the document.
    /// - Throws: ``PodcastError`` with the status or the transport error, naming the URL.
    static func fetch(_ url: URL) async throws(PodcastError) -> Data {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 20
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(from: url)
        } catch {
            throw PodcastError("\(url.absoluteString): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            throw PodcastError("\(url.absoluteString): HTTP \(status)")
        }
        return data
    }
}
