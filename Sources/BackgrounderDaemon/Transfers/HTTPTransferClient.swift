import AsyncHTTPClient
import BackgrounderCore
import BackgrounderProtocol
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

#if canImport(Glibc)
    import Glibc
#endif

/// Carries out transfer attempts over HTTP and HTTPS with async-http-client: redirects
/// followed up to a limit, cycles refused, bodies streamed between the socket and a file.
final class HTTPTransferClient: Sendable {
    private let client: HTTPClient
    /// Redirects followed before an attempt fails.
    static let maximumRedirects = 10

    /// - Parameter trustedCertificates: PEM files of authorities trusted besides the system's.
    init(trustedCertificates: [String]) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if !trustedCertificates.isEmpty {
            tls.additionalTrustRoots = trustedCertificates.map { .file($0) }
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .follow(max: Self.maximumRedirects, allowCycles: false),
            timeout: .init(connect: .seconds(30), read: .seconds(60))
        )
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes every connection.
    func shutdown() async {
        try? await client.shutdown()
    }

    /// One attempt at a download into the transfer's partial file, resuming from what is on
    /// disk when the server allows it.
    func download(
        _ request: TransferSubmission, id: Int, files: TransferFiles, validator: String?,
        started: @Sendable (TransferResponseStart) async -> Void,
        progress: @Sendable (TransferProgress) async -> Void
    ) async -> TransferAttemptOutcome {
        let onDisk = files.partialLength(id)
        var outgoing = Self.request(request, defaultMethod: "GET")
        if onDisk > 0, let validator {
            outgoing.headers.replaceOrAdd(name: "Range", value: "bytes=\(onDisk)-")
            outgoing.headers.replaceOrAdd(name: "If-Range", value: validator)
        }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, deadline: .distantFuture)
        } catch {
            return Self.outcome(of: error, url: request.url)
        }
        let head = Self.response(response, url: request.url)
        if let transient = Self.transientStatus(response) { return transient }
        // Where the body goes: appended after what is on disk (206 at our offset), or from 0.
        var offset: Int64 = 0
        var expected = response.headers.first(name: "Content-Length").flatMap { Int64($0) } ?? -1
        switch response.status.code {
        case 206:
            guard let range = ContentRange(response.headers.first(name: "Content-Range")), range.start == onDisk,
                onDisk > 0
            else {
                return .retry(
                    reason:
                        "the server answered a resume at byte \(onDisk) with Content-Range \(response.headers.first(name: "Content-Range") ?? "(none)")",
                    retryAfter: nil)
            }
            offset = onDisk
            expected = range.total ?? -1
        case 416 where onDisk > 0:
            // Our offset is past the server's end: the file changed. Start again from zero.
            files.removePartial(id)
            return .retry(
                reason: "the server refused the range from byte \(onDisk) (416); starting again", retryAfter: .zero)
        default:
            break
        }
        let validator =
            response.headers.first(name: "ETag").flatMap { $0.hasPrefix("W/") ? nil : $0 }
            ?? response.headers.first(name: "Last-Modified")
        await started(
            TransferResponseStart(validator: validator, discarded: offset == 0 ? onDisk : 0, expected: expected))
        let descriptor: Int32
        do {
            descriptor = try files.openPartial(id, at: offset)
        } catch {
            return .failed(TransferError(error.isNoSpace ? .cannotWriteToFile : .cannotCreateFile, "\(error)"))
        }
        defer { close(descriptor) }
        var written = offset
        var lastReport = ContinuousClock.now
        do {
            for try await buffer in response.body {
                try Self.write(buffer, to: descriptor, at: written, path: files.partialPath(id))
                written += Int64(buffer.readableBytes)
                if ContinuousClock.now - lastReport >= .milliseconds(250) {
                    lastReport = .now
                    await progress(TransferProgress(bytes: written, expected: expected))
                }
            }
        } catch let error as TransferFileError {
            files.removePartial(id)
            return .failed(
                TransferError(
                    .cannotWriteToFile,
                    error.isNoSpace ? "no space left on the device for \(request.url) (\(error))" : "\(error)"))
        } catch {
            await progress(TransferProgress(bytes: written, expected: expected))
            return Self.outcome(of: error, url: request.url, at: written)
        }
        await progress(TransferProgress(bytes: written, expected: expected))
        if expected >= 0 && written != expected {
            return .retry(reason: "the body ended at byte \(written) of \(expected)", retryAfter: nil)
        }
        return .finished(head)
    }

    /// One attempt at an upload: the whole file as the body (an upload starts again from the
    /// beginning after a failure; HTTP has no common way to resume one).
    func upload(
        _ request: TransferSubmission, file: UploadFile,
        progress: @escaping @Sendable (TransferProgress) async -> Void
    ) async -> TransferAttemptOutcome {
        var outgoing = Self.request(request, defaultMethod: "POST")
        let length = file.length
        outgoing.body = .stream(
            file.chunks { sent in await progress(TransferProgress(bytes: sent, expected: length)) },
            length: .known(length))
        do {
            let response = try await client.execute(outgoing, deadline: .distantFuture)
            if let transient = Self.transientStatus(response) { return transient }
            // The app hears the status and headers; the response body is read and dropped.
            for try await _ in response.body {}
            return .finished(Self.response(response, url: request.url))
        } catch {
            return Self.outcome(of: error, url: request.url)
        }
    }

    // MARK: Pieces

    private static func request(_ submission: TransferSubmission, defaultMethod: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: submission.url)
        request.method = HTTPMethod(rawValue: submission.method ?? defaultMethod)
        for (name, value) in submission.headers ?? [:] { request.headers.add(name: name, value: value) }
        return request
    }

    private static func response(_ response: HTTPClientResponse, url: String) -> TransferResponse {
        var headers: [String: String] = [:]
        for (name, value) in response.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        return TransferResponse(
            status: Int(response.status.code), headers: headers, url: response.url?.absoluteString ?? url)
    }

    /// 429 and 503 (and the gateway errors) are worth another try, after `Retry-After`.
    private static func transientStatus(_ response: HTTPClientResponse) -> TransferAttemptOutcome? {
        let code = Int(response.status.code)
        guard [429, 500, 502, 503, 504].contains(code) else { return nil }
        let after = response.headers.first(name: "Retry-After").flatMap { RetryAfter.parse($0, now: Date()) }
        return .retry(reason: "the server answered \(code)", retryAfter: after)
    }

    private static func write(_ buffer: ByteBuffer, to descriptor: Int32, at offset: Int64, path: String) throws {
        try buffer.withUnsafeReadableBytes { raw in
            var done = 0
            while done < raw.count {
                let count = pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw TransferFileError(path: path, "cannot write", errno)
                }
                done += count
            }
        }
    }

    /// What a thrown error means for the transfer: most network failures are worth another
    /// try; a bad URL, a redirect loop or a TLS failure is not.
    private static func outcome(of error: any Error, url: String, at bytes: Int64? = nil) -> TransferAttemptOutcome {
        let at = bytes.map { " after \($0) bytes" } ?? ""
        if error is CancellationError {
            return .failed(TransferError(.cancelled, "cancelled"))
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .failed(TransferError(.cancelled, "cancelled"))
            case .redirectCycleDetected:
                return .failed(TransferError(.httpTooManyRedirects, "\(url): the redirects go round in a cycle"))
            case .redirectLimitReached:
                return .failed(
                    TransferError(.httpTooManyRedirects, "\(url): more than \(maximumRedirects) redirects"))
            case .invalidURL, .emptyHost, .emptyScheme:
                return .failed(TransferError(.badURL, "\(url) is not a URL the daemon can fetch"))
            case .readTimeout, .connectTimeout, .writeTimeout:
                return .retry(reason: "timed out\(at)", retryAfter: nil)
            case .remoteConnectionClosed:
                return .retry(reason: "the server closed the connection\(at)", retryAfter: nil)
            default:
                if "\(error)".contains("unsupportedScheme") {
                    return .failed(TransferError(.unsupportedURL, "\(url): only http and https are supported"))
                }
                return .retry(reason: "\(error)\(at)", retryAfter: nil)
            }
        }
        if error is NIOSSLError || String(describing: type(of: error)).contains("SSL") {
            return .failed(TransferError(.secureConnectionFailed, "\(url): TLS failed: \(error)"))
        }
        if let error = error as? TransferFileError {
            return .failed(TransferError(.cannotWriteToFile, "\(error)"))
        }
        return .retry(reason: "\(error)\(at)", retryAfter: nil)
    }
}

/// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`).
struct ContentRange {
    let start: Int64
    let end: Int64
    let total: Int64?

    init?(_ text: String?) {
        guard let text, text.hasPrefix("bytes ") else { return nil }
        let parts = text.dropFirst(6).split(separator: "/", maxSplits: 1)
        let span = parts.first?.split(separator: "-", maxSplits: 1) ?? []
        guard parts.count == 2, span.count == 2, let start = Int64(span[0]), let end = Int64(span[1]), end >= start
        else { return nil }
        self.start = start
        self.end = end
        total = Int64(parts[1])
    }
}

/// `Retry-After`: seconds, or an HTTP date.
enum RetryAfter {
    static func parse(_ text: String, now: Date) -> Duration? {
        if let seconds = Int(text.trimmingCharacters(in: .whitespaces)), seconds >= 0 { return .seconds(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .seconds(max(0, date.timeIntervalSince(now)))
    }
}
