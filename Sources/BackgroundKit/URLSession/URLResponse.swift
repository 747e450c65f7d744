import BackgrounderProtocol
public import Foundation

/// The response a transfer ended with, as `URLResponse`.
///
/// On Linux Foundation's `URLResponse` lives in FoundationNetworking; a file that imports
/// both writes `BackgroundKit.URLResponse`.
public class URLResponse: @unchecked Sendable {
    /// The URL that answered, after redirects.
    public let url: URL?

    init(url: URL?) {
        self.url = url
    }
}

/// An HTTP response, as `HTTPURLResponse`: the status and headers of a completed transfer,
/// whatever the status (a 404 completes a transfer; it is not an error, as on iOS).
public final class HTTPURLResponse: URLResponse, @unchecked Sendable {
    /// The status code.
    public let statusCode: Int
    /// The headers, names in lower case as the daemon reports them.
    public let allHeaderFields: [String: String]

    /// Creates a response.
    public init(url: URL?, statusCode: Int, headerFields: [String: String]) {
        self.statusCode = statusCode
        self.allHeaderFields = headerFields
        super.init(url: url)
    }

    /// The value of a header, its name compared without case.
    public func value(forHTTPHeaderField field: String) -> String? {
        allHeaderFields.first { $0.key.caseInsensitiveCompare(field) == .orderedSame }?.value
    }

    /// The response the daemon reported.
    convenience init(_ response: TransferResponse) {
        self.init(url: URL(string: response.url), statusCode: response.status, headerFields: response.headers)
    }
}
