import AsyncHTTPClient
import BackgrounderCore
import BackgrounderProtocol
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
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
            timeout: .init(connect: .seconds(10), read: .seconds(60))
        )
        configuration.decompression = .disabled
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes every connection.
    func shutdown() async {
        try? await client.shutdown()
    }

    /// One attempt at a download into the transfer's partial file, resuming from what is on
    /// disk when the server allows it (``ResumePlan`` decides what each response means).
    func download(
        _ request: TransferSubmission, id: Int, files: TransferFiles, validator: String?,
        started: @Sendable (TransferResponseStart) async -> Void,
        progress: @Sendable (TransferProgress) async -> Void
    ) async -> TransferAttemptOutcome {
        let partial = ResumePlan.Partial(bytes: files.partialLength(id), validator: validator)
        var outgoing = Self.request(request, defaultMethod: "GET")
        for (name, value) in ResumePlan.requestHeaders(for: partial) {
            outgoing.headers.replaceOrAdd(name: name, value: value)
        }
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, deadline: .distantFuture)
        } catch {
            return Self.outcome(of: error)
        }
        let head = Self.response(response, url: request.url)
        if let transient = Self.transientStatus(head) { return transient }
        // Where the body goes: appended after what is on disk, or from 0.
        var offset: Int64 = 0
        var discarded: Int64 = 0
        var expected = head.headers["content-length"].flatMap { Int64($0) } ?? -1
        switch ResumePlan.decide(partial: partial, status: head.status, headers: head.headers) {
        case .append(let at, let total):
            offset = at
            expected = total ?? (at == 0 ? expected : -1)
        case .restart(let thrownAway):
            discarded = thrownAway
        case .restartWithoutRange(let thrownAway):
            files.removePartial(id)
            await started(TransferResponseStart(validator: nil, discarded: thrownAway, expected: -1))
            return .startAgain("the server would not resume at byte \(partial.bytes) (\(head.status)); starting again")
        case .alreadyComplete(let total):
            var whole = head
            whole.status = 200
            whole.headers["content-length"] = String(total)
            return .finished(whole)
        case .notAResume:
            // An error status the app hears: its body is the download, what was held is gone.
            discarded = 0
        case .fail(let reason):
            return .failed(.badResponse(reason))
        }
        let newValidator =
            head.headers["etag"].flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? head.headers["last-modified"]
        await started(TransferResponseStart(validator: newValidator, discarded: discarded, expected: expected))
        let descriptor: Int32
        do {
            descriptor = try files.openPartial(id, at: offset)
        } catch {
            return .failed(.file(.create, path: error.path, errno: error.code))
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
            return .failed(.file(.write, path: error.path, errno: error.code))
        } catch {
            await progress(TransferProgress(bytes: written, expected: expected))
            return Self.outcome(of: error)
        }
        await progress(TransferProgress(bytes: written, expected: expected))
        switch ResumePlan.verify(bytesOnDisk: written, expectedTotal: expected >= 0 ? expected : nil) {
        case .complete: return .finished(head)
        case .short: return .failed(.bodyShort(received: written, expected: expected))
        case .long(let extra):
            files.removePartial(id)
            return .failed(.badResponse("the body is \(extra) bytes longer than the server announced"))
        }
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
            let head = Self.response(response, url: request.url)
            if let transient = Self.transientStatus(head) { return transient }
            // The app hears the status and headers; the response body is read and dropped.
            for try await _ in response.body {}
            return .finished(head)
        } catch {
            return Self.outcome(of: error)
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

    /// A status Core retries (a failing server or gateway; 429 and 503 that say when) is a
    /// failure of the attempt; any other response is the app's to hear.
    private static func transientStatus(_ head: TransferResponse) -> TransferAttemptOutcome? {
        let retried =
            TransferFailure.retriedStatuses.contains(head.status)
            || (TransferFailure.retriedWithRetryAfter.contains(head.status)
                && head.headers["retry-after"].flatMap { RetryAfter.delay($0, now: Date()) } != nil)
        return retried ? .failed(.response(status: head.status, headers: head.headers)) : nil
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

    /// A thrown error, named as Core names failures.
    private static func outcome(of error: any Error) -> TransferAttemptOutcome {
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .cancelled
            case .redirectCycleDetected, .redirectLimitReached: return .failed(.tooManyRedirects(maximumRedirects))
            case .readTimeout, .connectTimeout, .writeTimeout, .tlsHandshakeTimeout: return .failed(.timedOut)
            case .remoteConnectionClosed: return .failed(.closedEarly)
            case .invalidURL, .emptyHost, .emptyScheme: return .failed(.badResponse("not a URL the daemon can fetch"))
            default:
                if "\(error)".contains("unsupportedScheme") { return .failed(.unsupportedScheme("\(error)")) }
                return .failed(.badResponse("\(error)"))
            }
        }
        if error is NIOSSLError || error is BoringSSLError { return .failed(.tlsFailure("\(error)")) }
        if let error = error as? NIOConnectionError {
            // Every address refused or unreachable; a name that did not resolve is a DNS failure.
            let resolved = error.dnsAError == nil || error.dnsAAAAError == nil
            return resolved ? .failed(.connectionRefused) : .failed(.dnsFailure(temporary: false))
        }
        if let error = error as? IOError {
            return error.errnoCode == ECONNRESET || error.errnoCode == EPIPE
                ? .failed(.connectionReset) : .failed(.connectionRefused)
        }
        if error is HTTPParserError { return .failed(.closedEarly) }
        return .failed(.connectionReset)
    }
}
