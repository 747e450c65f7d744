public import Foundation

/// A request for a background transfer, as `URLRequest`: a URL, a method and headers.
///
/// On Linux Foundation's `URLRequest` lives in FoundationNetworking, which BackgroundKit does
/// not import; a file that imports both writes `BackgroundKit.URLRequest`.
public struct URLRequest: Sendable, Hashable, CustomStringConvertible {
    /// The URL, `http` or `https`.
    public var url: URL?
    /// The method; `nil` means the transfer's default (`GET` to download, `POST` to upload).
    public var httpMethod: String?
    /// The headers, as set.
    public var allHTTPHeaderFields: [String: String]?

    /// Creates a request for a URL.
    public init(url: URL) {
        self.url = url
    }

    /// The value of a header, its name compared without case.
    public func value(forHTTPHeaderField field: String) -> String? {
        allHTTPHeaderFields?.first { $0.key.caseInsensitiveCompare(field) == .orderedSame }?.value
    }

    /// Sets (or, with `nil`, removes) a header, replacing one of the same name in any case.
    public mutating func setValue(_ value: String?, forHTTPHeaderField field: String) {
        var fields = allHTTPHeaderFields ?? [:]
        for key in fields.keys where key.caseInsensitiveCompare(field) == .orderedSame {
            fields[key] = nil
        }
        fields[field] = value
        allHTTPHeaderFields = fields
    }

    public var description: String { "\(httpMethod ?? "default") \(url?.absoluteString ?? "(no URL)")" }
}
