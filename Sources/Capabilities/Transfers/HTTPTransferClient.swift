import AsyncHTTPClient
import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(Glibc)
    import Glibc
#endif

/// What a download's delegate reports, in order.
package enum DownloadReport: Sendable {
    case started(TransferResponseStart)
    case progress(TransferProgress)
}

/// Carries out transfer attempts over HTTP and HTTPS with async-http-client: redirects
/// followed up to a limit, cycles refused, bodies streamed between the socket and a file.
package final class HTTPTransferClient: Sendable {
    private let client: HTTPClient
    private let group: MultiThreadedEventLoopGroup
    /// Redirects followed before an attempt fails.
    package static let maximumRedirects = 10

    /// - Parameter trustedCertificates: PEM files of authorities trusted besides the system's.
    package init(trustedCertificates: [String]) throws {
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
        // An event loop of its own: downloads write to disk on it (DownloadDelegate.swift), and
        // the control socket's loops must never wait behind a write.
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
    }

    /// Closes every connection.
    package func shutdown() async {
        try? await client.shutdown()
        try? await group.shutdownGracefully()
    }

    /// One attempt at a download into the transfer's partial file, resuming from what is on
    /// disk when the server allows it (``DownloadDelegate`` takes the response); the file never
    /// grows past `byteLimit`.
    package func download(
        _ request: TransferSubmission, id: Int, of app: BundleID, files: TransferFiles, validator: String?,
        byteLimit: Int64,
        started: @escaping @Sendable (TransferResponseStart) async -> Void,
        progress: @escaping @Sendable (TransferProgress) async -> Void
    ) async -> TransferAttemptOutcome {
        let partial = ResumePlan.Partial(bytes: files.partialLength(id, of: app), validator: validator)
        var headers = Self.headers(of: request)
        for (name, value) in ResumePlan.requestHeaders(for: partial) { headers.replaceOrAdd(name: name, value: value) }
        let outgoing: HTTPClient.Request
        do {
            outgoing = try HTTPClient.Request(
                url: request.url, method: HTTPMethod(rawValue: request.method ?? "GET"), headers: headers)
        } catch {
            return Self.outcome(of: error)
        }
        // The delegate reports from the event loop; the capability hears it on its actor, in order.
        let (reports, continuation) = AsyncStream<DownloadReport>.makeStream()
        let delegate = DownloadDelegate(
            id: id, app: app, files: files, partial: partial, byteLimit: byteLimit, url: request.url,
            started: { continuation.yield(.started($0)) }, progress: { continuation.yield(.progress($0)) })
        let relay = Task {
            for await report in reports {
                switch report {
                case .started(let start): await started(start)
                case .progress(let moved): await progress(moved)
                }
            }
        }
        let task = client.execute(request: outgoing, delegate: delegate, deadline: nil)
        let error: (any Error)? = await withTaskCancellationHandler {
            do {
                try await task.futureResult.get()
                return nil
            } catch {
                return error
            }
        } onCancel: {
            task.cancel()
        }
        let outcome = try? await task.futureResult.eventLoop.submit { delegate.outcome(error: error) }.get()
        continuation.finish()
        await relay.value
        return outcome ?? .cancelled
    }

    /// One attempt at an upload: the whole file as the body (an upload starts again from the
    /// beginning after a failure; HTTP has no common way to resume one).
    package func upload(
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
            let head = TransferResponse(
                status: Int(response.status.code), headers: response.headers,
                url: response.url?.absoluteString ?? request.url)
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
        request.headers = headers(of: submission)
        return request
    }

    /// The app's request headers.
    private static func headers(of submission: TransferSubmission) -> HTTPHeaders {
        HTTPHeaders((submission.headers ?? [:]).map { ($0.key, $0.value) })
    }

    /// A response Core retries (a failing server or gateway; 429 and 503 that say when) is a
    /// failure of the attempt; any other response is the app's to hear.
    package static func transientStatus(_ head: TransferResponse) -> TransferAttemptOutcome? {
        guard TransferFailure.isRetried(status: head.status, headers: head.headers, now: Date()) else { return nil }
        return .failed(.response(status: head.status, headers: head.headers))
    }

    /// A thrown error, named as Core names failures.
    package static func outcome(of error: any Error) -> TransferAttemptOutcome {
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
