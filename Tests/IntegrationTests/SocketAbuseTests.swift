import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile and broken clients: each gets an error or a disconnect, the daemon logs it, and
/// `status` answers right after for everyone else.
@Suite("Hostile socket clients", .timeLimit(.minutes(5)), .tearsDown)
struct SocketAbuseTests {
    /// The daemon is alive and answers a fresh client.
    private func expectServing(_ fixture: DaemonFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(fixture.daemon.isRunning, sourceLocation: sourceLocation)
        let status = try fixture.daemon.status()
        #expect(status.bundles.loaded == 1, sourceLocation: sourceLocation)
    }

    /// Waits until the daemon counts one connection, `asker`'s own: asked over a connection
    /// held open, so the count never includes a just-closed asker the daemon has not yet seen go.
    private func expectAlone(_ asker: ControlClient, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var clients = -1
        let settled = try await waitUntil {
            guard case .status(let status) = try asker.request(.status).body else { return false }
            clients = status.clients
            return clients == 1
        }
        #expect(settled, "the daemon still counts \(clients) connections", sourceLocation: sourceLocation)
    }

    private func expectError(
        _ message: DaemonMessage, _ code: ProtocolError.Code, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .error(let error) = message.body else {
            Issue.record("expected ERROR \(code), got \(message.className)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, sourceLocation: sourceLocation)
    }

    @Test("garbage bytes, invalid UTF-8 and NULs get errors; the connection and daemon go on")
    func garbage() async throws {
        let fixture = try await DaemonFixture(prefix: "garb")
        atTeardown { await fixture.tearDown() }
        let client = try fixture.daemon.client()
        var generator = SystemRandomNumberGenerator()
        var junk = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        junk.removeAll { $0 == UInt8(ascii: "\n") }
        try client.writeAll(Data(junk + [UInt8(ascii: "\n")]))
        expectError(try client.receive(), .malformedJSON)
        try client.writeAll(Data([0, 0, 0, UInt8(ascii: "\n")]))
        expectError(try client.receive(), .malformedJSON)
        // The same connection still works.
        guard case .status = try client.request(.status).body else {
            Issue.record("no STATUS after garbage")
            return
        }
        try expectServing(fixture)
        #expect(fixture.daemon.log.contains("bad request"))
    }

    @Test("a 10 MB line is discarded with lineTooLong, and the next line is served")
    func hugeLine() async throws {
        let fixture = try await DaemonFixture(prefix: "huge")
        atTeardown { await fixture.tearDown() }
        let client = try fixture.daemon.client(timeout: .seconds(30))
        try client.writeAll(Data(repeating: UInt8(ascii: "a"), count: 10 * 1024 * 1024) + Data("\n".utf8))
        let reply = try client.receive()
        expectError(reply, .lineTooLong)
        if case .error(let error) = reply.body {
            #expect(error.message.contains("\(10 * 1024 * 1024)-byte"))
        }
        guard case .status = try client.request(.status).body else {
            Issue.record("no STATUS after the huge line")
            return
        }
        try expectServing(fixture)
    }

    @Test("half a line then a hang-up costs nothing")
    func halfLine() async throws {
        let fixture = try await DaemonFixture(prefix: "half")
        atTeardown { await fixture.tearDown() }
        for _ in 0..<20 {
            let client = try fixture.daemon.client()
            try client.writeAll(Data(#"{"class":"STAT"#.utf8))
        }
        try expectServing(fixture)
    }

    @Test("unknown class gets unknownClass naming it")
    func unknownClass() async throws {
        let fixture = try await DaemonFixture(prefix: "unkn")
        atTeardown { await fixture.tearDown() }
        let client = try fixture.daemon.client()
        try client.writeAll(Data(#"{"class":"SELF_DESTRUCT","id":5}"#.utf8) + Data("\n".utf8))
        let reply = try client.receive()
        expectError(reply, .unknownClass)
        #expect(reply.id == .number(5))
        if case .error(let error) = reply.body { #expect(error.message.contains("SELF_DESTRUCT")) }
        try expectServing(fixture)
    }

    @Test("1000 connections opened and dropped")
    func connectionStorm() async throws {
        let fixture = try await DaemonFixture(prefix: "storm")
        atTeardown { await fixture.tearDown() }
        for _ in 0..<1000 {
            // Close-on-exec: the suite's other tests spawn processes all the while, and a child
            // that inherited one of these would hold its connection open after this close.
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: fixture.daemon.socketPath.utf8) }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            close(fd)
        }
        // Until the daemon has seen the hang-ups, this uid may still hold its 64 connections
        // and a new one is refused; on a loaded runner that takes a while.
        #expect(await waitUntil(timeout: .seconds(60)) { (try? fixture.daemon.status()) != nil })
        try expectServing(fixture)
        // Every dropped connection is gone from the daemon's count. Asked over one connection
        // held open, so the count never includes a just-closed asker the daemon has not yet
        // seen go: 1 is this connection alone.
        let asker = try fixture.daemon.client()
        try await expectAlone(asker)
    }

    @Test("a client that never reads its replies is disconnected; others are served meanwhile")
    func nonReadingPeer() async throws {
        let fixture = try await DaemonFixture(prefix: "slow")
        atTeardown { await fixture.tearDown() }
        let greedy = try fixture.daemon.client(timeout: .seconds(30))
        let request = Data(#"{"class":"STATUS"}"#.utf8) + Data("\n".utf8)
        try greedy.writeAll(Data((0..<4000).map { _ in request }.joined()))
        // While its replies pile up, everyone else is served.
        try expectServing(fixture)
        #expect(
            await waitUntil(timeout: .seconds(30)) { fixture.daemon.log.contains("has not read its replies") },
            "log: \(fixture.daemon.log)"
        )
        var received = 0
        var ending: ControlClientError?
        while ending == nil {
            switch Result(catching: { () throws(ControlClientError) in try greedy.receive() }) {
            case .success: received += 1
            case .failure(let error): ending = error
            }
        }
        #expect(received < 4000, "the daemon should have hung up before answering everything")
        // A hang-up with replies still unread arrives as a reset rather than an end of stream.
        switch ending {
        case .closedByDaemon, .system(_, ECONNRESET): break
        default: Issue.record("expected the daemon to hang up, got \(String(describing: ending))")
        }
        try expectServing(fixture)
    }

    @Test(
        "a client that ends its input gets its replies, then the daemon hangs up; one that hangs up after the greeting is not counted"
    )
    func endOfInput() async throws {
        let fixture = try await DaemonFixture(prefix: "eof")
        atTeardown { await fixture.tearDown() }
        let asker = try fixture.daemon.client()

        // As `echo '{"class":"STATUS"}' | socat - UNIX:...` does: a request, then end of input.
        let script = try Self.connectReadingGreeting(fixture.daemon.socketPath)
        defer { close(script) }
        let request = Array(#"{"class":"STATUS","id":7}"#.utf8) + [10]
        #expect(
            request.withUnsafeBytes { send(script, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == request.count)
        #expect(shutdown(script, Int32(SHUT_WR)) == 0)
        let rest = Self.readToEnd(script)
        #expect(rest.ended, "the daemon kept the connection after answering: \(rest.errno)")
        #expect(String(decoding: rest.bytes, as: UTF8.self).contains(#""class":"STATUS""#))

        // Hung up after the greeting reached it: the daemon sees end of input, not an error.
        for _ in 0..<20 { close(try Self.connectReadingGreeting(fixture.daemon.socketPath)) }
        try await expectAlone(asker)
    }

    /// A raw connection whose greeting (the daemon's VERSION line) has been read, so the
    /// daemon's first write is known to have reached it; reads time out after 10 s.
    static func connectReadingGreeting(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw HarnessError("connect: \(String(cString: strerror(errno)))") }
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) == 1 && byte != 10 {}
        guard byte == 10 else { throw HarnessError("no greeting: \(String(cString: strerror(errno)))") }
        return fd
    }

    /// Reads until end of stream or a failure (the receive timeout): what came, and whether
    /// the stream ended.
    static func readToEnd(_ fd: Int32) -> (bytes: [UInt8], ended: Bool, errno: String) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                bytes += buffer[..<count]
                continue
            }
            return (bytes, count == 0, count < 0 ? String(cString: strerror(errno)) : "")
        }
    }
}
