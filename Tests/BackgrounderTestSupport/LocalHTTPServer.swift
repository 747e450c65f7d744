import BackgrounderCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on a loopback port, in the test process, for apps that fetch: it
/// serves documents the test sets and changes, with an `ETag` and a `Last-Modified`, and
/// answers a matching `If-None-Match` with `304 Not Modified` as real servers do.
///
/// One thread accepts and answers one connection at a time (`Connection: close`); that is all
/// a sample's fetches need, and it keeps the server small enough to read.
public final class LocalHTTPServer: Sendable {
    /// A request as the server saw it, for tests to check what an app sent.
    public struct Request: Sendable, Hashable {
        /// `GET`, `HEAD`...
        public var method: String
        /// The path asked for.
        public var path: String
        /// The `If-None-Match` header, when sent.
        public var ifNoneMatch: String?
        /// The status answered.
        public var status: Int
    }

    private struct Document {
        var body: Data
        var contentType: String
        var etag: String
        var lastModified: String
    }

    private struct State {
        var documents: [String: Document] = [:]
        var requests: [Request] = []
        var versions = 0
        /// Paths whose requests wait, unanswered, until ``release()``.
        var held: Set<String> = []
        /// Requests waiting now.
        var waiting = 0
    }

    /// The port it listens on.
    public let port: UInt16
    private let listener: Int32
    private let state = Locked(State())
    private let finished = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// `http://127.0.0.1:PORT`, to which a path is appended.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts listening on a free loopback port.
    /// - Throws: ``HarnessError`` when the socket cannot be bound.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw HarnessError("bind or listen on 127.0.0.1: \(reason)")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in
            acceptLoop()
            finished.signal()
        }
        thread.name = "LocalHTTPServer \(port)"
        thread.start()
    }

    /// Serves `body` at `path` from now on, with a new `ETag` and `Last-Modified`.
    /// - Parameters:
    ///   - path: The path, starting with `/`.
    ///   - body: The document.
    ///   - contentType: Its media type.
    public func serve(_ path: String, _ body: String, contentType: String = "application/rss+xml") {
        state.withLock { state in
            state.versions += 1
            // Each version is a second later, so If-Modified-Since also tells them apart.
            let modified = Date(timeIntervalSince1970: 1_700_000_000 + Double(state.versions))
            state.documents[path] = Document(
                body: Data(body.utf8), contentType: contentType, etag: "\"v\(state.versions)\"",
                lastModified: Self.httpDate(modified))
        }
    }

    /// Every request answered so far, oldest first.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Makes requests for `path` wait, unanswered, until ``release()``: a server that is slow
    /// to answer, for tests of what a client does meanwhile. One thread serves everything, so
    /// other requests wait too.
    public func hold(_ path: String) {
        state.withLock { _ = $0.held.insert(path) }
    }

    /// Requests waiting in ``hold(_:)`` now.
    public var waiting: Int { state.withLock { $0.waiting } }

    /// Answers the request waiting, and those to come, at once.
    public func release() {
        let waiting = state.withLock { state in
            state.held = []
            return state.waiting
        }
        for _ in 0..<waiting { released.signal() }
    }

    /// Stops listening and waits for the accepting thread to end.
    public func stop() {
        release()
        shutdown(listener, Int32(SHUT_RDWR))
        _ = finished.wait(timeout: .now() + 5)
        close(listener)
    }

    // MARK: Serving

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return  // shut down
            }
            // The test process starts daemons: no answered connection may leak into them.
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            answer(client)
            close(client)
        }
    }

    private func answer(_ client: Int32) {
        // A client that stalls must not stall the server for the rest of the test.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let head = readHead(client) else { return }
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else {
            send(client, status: 400, headers: [:], body: Data("bad request line\n".utf8))
            return
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let method = String(requestLine[0])
        let path = String(requestLine[1])
        let ifNoneMatch = headers["if-none-match"]
        let held = state.withLock { state in
            guard state.held.contains(path) else { return false }
            state.waiting += 1
            return true
        }
        if held {
            released.wait()
            state.withLock { $0.waiting -= 1 }
        }
        let document = state.withLock { $0.documents[path] }
        let status: Int
        if method != "GET" && method != "HEAD" {
            status = 405
            send(client, status: status, headers: ["Allow": "GET, HEAD"], body: Data())
        } else if let document {
            let fresh = ifNoneMatch.map {
                $0 == "*"
                    || $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == document.etag }
            }
            let validators = ["ETag": document.etag, "Last-Modified": document.lastModified]
            if fresh == true {
                status = 304
                send(client, status: status, headers: validators, body: Data())
            } else {
                status = 200
                send(
                    client, status: status, headers: validators.merging(["Content-Type": document.contentType]) { $1 },
                    body: method == "HEAD" ? Data() : document.body)
            }
        } else {
            status = 404
            send(client, status: status, headers: ["Content-Type": "text/plain"], body: Data("not found\n".utf8))
        }
        state.withLock {
            $0.requests.append(Request(method: method, path: path, ifNoneMatch: ifNoneMatch, status: status))
        }
    }

    /// The request line and headers, up to the blank line; `nil` when the client sent none.
    private func readHead(_ client: Int32) -> String? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while bytes.count < 65536 {
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            bytes += chunk[0..<count]
            if let range = bytes.firstRange(of: end) {
                return String(decoding: bytes[..<range.lowerBound], as: UTF8.self)
            }
        }
        return nil
    }

    private func send(_ client: Int32, status: Int, headers: [String: String], body: Data) {
        var head = "HTTP/1.1 \(status) \(Self.reasons[status] ?? "Status")\r\n"
        var all = headers
        all["Content-Length"] = "\(status == 304 ? 0 : body.count)"
        all["Connection"] = "close"
        all["Date"] = Self.httpDate(Date())
        for (name, value) in all.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        var bytes = Data(head.utf8)
        if status != 304 { bytes += body }
        bytes.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let count = Glibc.send(client, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if count <= 0 { return }
                sent += count
            }
        }
    }

    private static let reasons = [
        200: "OK", 304: "Not Modified", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
    ]

    /// An IMF-fixdate (RFC 9110): `Tue, 14 Nov 2023 22:13:21 GMT`.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
