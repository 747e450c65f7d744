public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A real HTTP/1.1 server on a loopback port, in the test process, for background transfers:
/// documents of any size streamed from disk with ranges and validators, uploads stored to
/// disk, faults set per path while it runs, HTTPS with a throwaway authority, and a log of
/// every request.
///
/// Built on SwiftNIO's HTTP server pipeline, on event loops of its own, so it keeps serving
/// while a test's task waits or blocks.
///
/// ```swift
/// let server = try TransferServer(uploadDirectory: directory.appending("uploads"))
/// try server.serve(path: "/big.bin", file: big)
/// server.inject(.cutAfter(bytes: 1 << 20), at: "/big.bin", times: 1)
/// // ... the client fetches server.url("/big.bin") ...
/// #expect(server.requests(for: "/big.bin").last?.range == "bytes=1048576-")
/// await server.shutdown()
/// ```
public final class TransferServer: Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: UInt16
    /// `http://127.0.0.1:PORT`, or `https://...` with TLS; a path is appended.
    public let baseURL: String
    /// The authority's certificate to trust, with TLS.
    public let caFile: String?
    /// Where uploads are stored, if they are taken.
    public let uploadDirectory: String?

    private let documents = DocumentStore()
    private let log = TransferLog()
    private let connections = ConnectionSet()
    private let listener: any Channel

    /// Starts listening on a free loopback port.
    /// - Parameters:
    ///   - uploadDirectory: An existing directory where `PUT` and `POST` bodies to paths under
    ///     `/upload/` are stored; `nil` refuses uploads with 403.
    ///   - tls: Serves HTTPS with this authority's server certificate.
    /// - Throws: ``HarnessError`` or NIO's error when it cannot listen or read the certificate.
    public init(uploadDirectory: String? = nil, tls: TestCertificateAuthority? = nil) throws {
        let tlsContext = try tls.map { authority in
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(authority.certificateFile).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: authority.keyFile, format: .pem)))
            return try NIOSSLContext(configuration: configuration)
        }
        let services = TransferServices(documents: documents, log: log, uploadDirectory: uploadDirectory)
        let connections = connections
        listener = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let number = connections.add(channel)
                    let pipeline = channel.pipeline.syncOperations
                    if let tlsContext { try pipeline.addHandler(NIOSSLServerHandler(context: tlsContext)) }
                    try pipeline.configureHTTPServerPipeline()
                    try pipeline.addHandler(TransferHandler(services: services, connection: number))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .wait()
        guard let bound = listener.localAddress?.port else { throw HarnessError("the listener has no port") }
        port = UInt16(bound)
        baseURL = "\(tls == nil ? "http" : "https")://127.0.0.1:\(bound)"
        caFile = tls?.caFile
        self.uploadDirectory = uploadDirectory
    }

    /// Stops listening and closes every connection, stalled ones included.
    public func shutdown() async {
        try? await listener.close()
        await connections.closeAll()
    }

    /// Closes every open connection, stalled ones included, and goes on listening: a network
    /// reset, after which a client resumes when it chooses (the test chooses when a stall ends).
    public func dropConnections() async {
        await connections.closeAll()
    }

    /// The URL of a path on this server.
    /// - Parameter path: Starting with `/`.
    public func url(_ path: String) -> String {
        baseURL + path
    }

    // MARK: Documents

    /// Serves a file at `path` from now on, streamed from disk for each request, as a new
    /// version (new `ETag` and `Last-Modified`). Its length is taken now.
    /// - Parameters:
    ///   - path: The path, starting with `/`.
    ///   - file: The file.
    ///   - contentType: Its media type.
    /// - Throws: ``HarnessError`` when it is not a readable regular file.
    public func serve(path: String, file: String, contentType: String = "application/octet-stream") throws {
        let size = try DiskFile.size(of: file)
        try DiskFile.open(reading: file).close()
        documents.serve(path, body: .file(file), size: size, contentType: contentType)
    }

    /// Serves bytes at `path` from now on, as a new version: for small documents.
    /// - Parameters:
    ///   - path: The path, starting with `/`.
    ///   - data: The document.
    ///   - contentType: Its media type.
    public func serve(path: String, data: Data, contentType: String = "application/octet-stream") {
        documents.serve(path, body: .data(ByteBuffer(bytes: data)), size: Int64(data.count), contentType: contentType)
    }

    /// Stops serving `path` (it answers 404).
    public func remove(path: String) {
        documents.remove(path)
    }

    /// Gives the document at `path` another `ETag` (its bytes and `Last-Modified` stay): a
    /// validator that changed between a client's attempts.
    /// - Parameters:
    ///   - etag: The new tag; quotes are added when missing.
    ///   - path: The document's path.
    /// - Precondition: A document is served at `path`.
    public func setETag(_ etag: String, for path: String) {
        let quoted = etag.hasPrefix("\"") || etag.hasPrefix("W/") ? etag : "\"\(etag)\""
        precondition(documents.setETag(quoted, for: path), "setETag: no document is served at \(path)")
    }

    /// The `ETag` the document at `path` is served with now.
    public func etag(for path: String) -> String? {
        documents.document(at: path)?.etag
    }

    /// The `Last-Modified` the document at `path` is served with now.
    public func lastModified(for path: String) -> String? {
        documents.document(at: path)?.lastModified
    }

    // MARK: Faults

    /// Makes requests for `path` misbehave (whether or not a document is there).
    /// - Parameters:
    ///   - fault: How.
    ///   - path: The path, without a query.
    ///   - times: For how many requests from now; `nil`: until ``clearFaults(at:)``.
    public func inject(_ fault: Fault, at path: String, times: Int? = nil) {
        precondition(times.map { $0 > 0 } ?? true, "inject: times must be positive, not \(times ?? 0)")
        documents.inject(fault, at: path, times: times)
    }

    /// Removes the faults of `path`, or of every path when `nil`.
    public func clearFaults(at path: String? = nil) {
        documents.clearFaults(at: path)
    }

    // MARK: What happened

    /// Every request so far, oldest first, those in progress included.
    public var requests: [Request] { log.requests }

    /// The requests for `path` (query ignored), oldest first.
    public func requests(for path: String) -> [Request] {
        log.requests.filter { $0.path.prefix { $0 != "?" } == path }
    }

    /// Every upload that arrived in full, oldest first.
    public var uploads: [Upload] { log.uploads }

    /// The most document bytes the server held in memory at once, over all responses: a
    /// chunk or two per response being sent, whatever the documents' sizes.
    public var peakBufferedBytes: Int64 { log.bufferedPeak }

    /// The size of the chunks documents are read and sent in.
    public static var chunkSize: Int { BodyStream.chunkSize }
}
