import BackgrounderTestSupport
import Foundation
import Testing

/// The test support's transfer server, checked with a real client (`curl`) before the daemon's
/// transfer tests rely on it: every fault does what it says, and a checker that can fail.
@Suite("Transfer server", .timeLimit(.minutes(5)), .tearsDown)
struct TransferServerTests {
    /// A scratch directory, a server with an upload directory in it, and curl.
    struct Fixture {
        let directory: TemporaryDirectory
        let server: TransferServer

        init(tls: Bool = false) throws {
            directory = try TemporaryDirectory(prefix: "xfer")
            let uploads = directory.appending("uploads")
            try FileManager.default.createDirectory(atPath: uploads, withIntermediateDirectories: true)
            let authority = tls ? try TestCertificateAuthority.make(in: directory.path) : nil
            server = try TransferServer(uploadDirectory: uploads, tls: authority)
        }

        /// A served file of `bytes` pseudo-random bytes at `path`; returns its local copy.
        @discardableResult
        func document(_ path: String, bytes: Int64, seed: UInt64 = 7) throws -> String {
            let file = directory.appending("served" + path.replacingOccurrences(of: "/", with: "_"))
            try TransferServer.makeFile(at: file, bytes: bytes, seed: seed)
            try server.serve(path: path, file: file)
            return file
        }

        /// Runs curl quietly with `arguments`; its output is what `-w` writes.
        func curl(_ arguments: [String]) async throws -> Tool.Result {
            try await Tool.run("/usr/bin/curl", ["-s"] + arguments)
        }

        /// The headers of the last response in a `curl -D` dump, names in lower case.
        func headers(_ dump: String) throws -> [String: String] {
            let text = try String(contentsOfFile: dump, encoding: .utf8)
            let last = text.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }.last ?? ""
            var headers: [String: String] = [:]
            for line in last.components(separatedBy: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                    in: .whitespaces)
            }
            return headers
        }

        func size(_ path: String) -> Int64 {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
        }

        func tearDown() async {
            await server.shutdown()
            directory.remove()
        }
    }

    @Test(
        "a GET brings the whole file, byte for byte, with length, validators and Accept-Ranges; HEAD the same headers")
    func fullGet() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        let served = try fixture.document("/doc.bin", bytes: 1_000_003)
        let out = fixture.directory.appending("out")
        let dump = fixture.directory.appending("headers")
        let result = try await fixture.curl([
            "-o", out, "-D", dump, "-w", "%{http_code}", fixture.server.url("/doc.bin"),
        ])
        #expect(result.status == 0 && result.output == "200")
        #expect(try await TransferServer.sha256(ofFile: out) == TransferServer.sha256(ofFile: served))
        let headers = try fixture.headers(dump)
        #expect(headers["content-length"] == "1000003")
        #expect(headers["etag"] == fixture.server.etag(for: "/doc.bin"))
        #expect(headers["etag"]?.hasPrefix("\"v") == true)
        #expect(headers["last-modified"] == fixture.server.lastModified(for: "/doc.bin"))
        #expect(headers["accept-ranges"] == "bytes")

        let head = try await fixture.curl([
            "-I", "-o", "/dev/null", "-D", dump, "-w", "%{http_code}", fixture.server.url("/doc.bin"),
        ])
        #expect(head.output == "200")
        #expect(try fixture.headers(dump)["content-length"] == "1000003")
        // The server writes down a response's end once its last write is flushed, which may
        // be after curl has read it.
        #expect(
            await waitUntil {
                fixture.server.requests(for: "/doc.bin").allSatisfy { $0.outcome != .inProgress }
            })
        let log = fixture.server.requests(for: "/doc.bin")
        #expect(log.map(\.method) == ["GET", "HEAD"])
        #expect(log.map(\.bodyBytesSent) == [1_000_003, 0])
        #expect(log.allSatisfy { $0.outcome == .complete && $0.status == 200 })
    }

    @Test("a resume asks for bytes=N- and gets 206 with Content-Range; the joined file is the served one")
    func rangeResume() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        let served = try fixture.document("/doc.bin", bytes: 700_000)
        let out = fixture.directory.appending("out")
        // The first 300 000 bytes are already here, as after a cut.
        let prefix = try FileHandle(forReadingFrom: URL(fileURLWithPath: served)).readData(ofLength: 300_000)
        try prefix.write(to: URL(fileURLWithPath: out))
        let dump = fixture.directory.appending("headers")
        let result = try await fixture.curl([
            "-C", "-", "-o", out, "-D", dump, "-w", "%{http_code}", fixture.server.url("/doc.bin"),
        ])
        #expect(result.status == 0 && result.output == "206")
        #expect(try await TransferServer.sha256(ofFile: out) == TransferServer.sha256(ofFile: served))
        #expect(try fixture.headers(dump)["content-range"] == "bytes 300000-699999/700000")
        let request = try #require(fixture.server.requests(for: "/doc.bin").last)
        #expect(request.range == "bytes=300000-")
        #expect(request.status == 206 && request.bodyBytesSent == 400_000)

        let closed = try await fixture.curl([
            "-r", "10-19", "-o", out, "-w", "%{http_code}", fixture.server.url("/doc.bin"),
        ])
        #expect(closed.output == "206" && fixture.size(out) == 10)
    }

    @Test("If-Range with another ETag or date gets the whole document (200); with the current one, the part (206)")
    func ifRange() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        try fixture.document("/doc.bin", bytes: 50_000)
        let out = fixture.directory.appending("out")
        let url = fixture.server.url("/doc.bin")
        let stale = try await fixture.curl([
            "-r", "100-", "-H", "If-Range: \"v0-old\"", "-o", out, "-w", "%{http_code}", url,
        ])
        #expect(stale.output == "200" && fixture.size(out) == 50_000)
        let oldDate = try await fixture.curl(
            ["-r", "100-", "-H", "If-Range: Mon, 01 Jan 2001 00:00:00 GMT", "-o", out, "-w", "%{http_code}", url])
        #expect(oldDate.output == "200" && fixture.size(out) == 50_000)
        let etag = try #require(fixture.server.etag(for: "/doc.bin"))
        let current = try await fixture.curl([
            "-r", "100-", "-H", "If-Range: \(etag)", "-o", out, "-w", "%{http_code}", url,
        ])
        #expect(current.output == "206" && fixture.size(out) == 49_900)
        let date = try #require(fixture.server.lastModified(for: "/doc.bin"))
        let byDate = try await fixture.curl([
            "-r", "100-", "-H", "If-Range: \(date)", "-o", out, "-w", "%{http_code}", url,
        ])
        #expect(byDate.output == "206")
        #expect(
            fixture.server.requests(for: "/doc.bin").map(\.ifRange) == [
                "\"v0-old\"", "Mon, 01 Jan 2001 00:00:00 GMT", etag, date,
            ])

        // A changed validator: the next If-Range with the old tag fails.
        fixture.server.setETag("v99", for: "/doc.bin")
        let changed = try await fixture.curl([
            "-r", "100-", "-H", "If-Range: \(etag)", "-o", out, "-w", "%{http_code}", url,
        ])
        #expect(changed.output == "200" && fixture.server.etag(for: "/doc.bin") == "\"v99\"")
    }

    @Test("a range past the end gets 416 with Content-Range bytes */TOTAL")
    func unsatisfiable() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        try fixture.document("/doc.bin", bytes: 5000)
        let dump = fixture.directory.appending("headers")
        let result = try await fixture.curl(
            ["-r", "5000-", "-o", "/dev/null", "-D", dump, "-w", "%{http_code}", fixture.server.url("/doc.bin")])
        #expect(result.output == "416")
        #expect(try fixture.headers(dump)["content-range"] == "bytes */5000")
    }

    @Test(
        "a cut closes the connection mid-body: curl reports a partial file of exactly the bytes sent, and the next try is whole"
    )
    func cutMidBody() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        let served = try fixture.document("/doc.bin", bytes: 2_000_000)
        fixture.server.inject(.cutAfter(bytes: 300_001), at: "/doc.bin", times: 1)
        let out = fixture.directory.appending("out")
        let cut = try await fixture.curl(["-o", out, fixture.server.url("/doc.bin")])
        #expect(cut.status == 18, "curl: transfer closed with outstanding read data remaining")
        #expect(fixture.size(out) == 300_001)
        let whole = try await fixture.curl(["-o", out, fixture.server.url("/doc.bin")])
        #expect(whole.status == 0)
        #expect(try await TransferServer.sha256(ofFile: out) == TransferServer.sha256(ofFile: served))
        let log = fixture.server.requests(for: "/doc.bin")
        #expect(log.map(\.outcome) == [.closedEarly, .complete])
        #expect(log.map(\.bodyBytesSent) == [300_001, 2_000_000])
    }

    @Test("shortBody sends less than Content-Length and closes; longBody sends more")
    func wrongLengths() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        try fixture.document("/doc.bin", bytes: 100_000)
        let out = fixture.directory.appending("out")
        fixture.server.inject(.shortBody(missing: 10), at: "/doc.bin", times: 1)
        let short = try await fixture.curl(["-o", out, fixture.server.url("/doc.bin")])
        #expect(short.status == 18 && fixture.size(out) == 99_990)
        fixture.server.inject(.longBody(extra: 5000), at: "/doc.bin", times: 1)
        _ = try await fixture.curl(["-o", out, fixture.server.url("/doc.bin")])
        #expect(fixture.size(out) == 100_000, "curl keeps Content-Length bytes")
        #expect(fixture.server.requests(for: "/doc.bin").map(\.bodyBytesSent) == [99_990, 105_000])
    }

    @Test("503 with Retry-After for the next two requests, then the document")
    func serviceUnavailable() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        try fixture.document("/doc.bin", bytes: 1000)
        fixture.server.inject(.status(503, retryAfter: 7), at: "/doc.bin", times: 2)
        let dump = fixture.directory.appending("headers")
        var codes: [String] = []
        for _ in 0..<3 {
            codes.append(
                try await fixture.curl([
                    "-o", "/dev/null", "-D", dump, "-w", "%{http_code}", fixture.server.url("/doc.bin"),
                ])
                .output)
            if codes.count == 1 { #expect(try fixture.headers(dump)["retry-after"] == "7") }
        }
        #expect(codes == ["503", "503", "200"])
        fixture.server.inject(.status(429, retryAfter: 1), at: "/doc.bin")
        #expect(
            try await fixture.curl(["-o", "/dev/null", "-w", "%{http_code}", fixture.server.url("/doc.bin")]).output
                == "429")
        fixture.server.clearFaults()
        #expect(
            try await fixture.curl(["-o", "/dev/null", "-w", "%{http_code}", fixture.server.url("/doc.bin")]).output
                == "200")
    }

    @Test("a redirect is followed; a loop a→b→a stops at curl's --max-redirs; an unknown path is 404")
    func redirects() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        let served = try fixture.document("/doc.bin", bytes: 10_000)
        let out = fixture.directory.appending("out")
        fixture.server.inject(.redirect(to: "/doc.bin"), at: "/old")
        let moved = try await fixture.curl(["-L", "-o", out, "-w", "%{http_code}", fixture.server.url("/old")])
        #expect(moved.output == "200")
        #expect(try await TransferServer.sha256(ofFile: out) == TransferServer.sha256(ofFile: served))

        fixture.server.inject(.redirect(to: "/b"), at: "/a")
        fixture.server.inject(.redirect(to: fixture.server.url("/a"), status: 301), at: "/b")
        let loop = try await fixture.curl(["-L", "--max-redirs", "5", "-o", "/dev/null", fixture.server.url("/a")])
        #expect(loop.status == 47, "curl: maximum redirects followed")
        #expect(fixture.server.requests(for: "/a").count == 3 && fixture.server.requests(for: "/b").count == 3)

        let missing = try await fixture.curl(["-o", out, "-w", "%{http_code}", fixture.server.url("/nothing")])
        #expect(missing.output == "404")
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains("/nothing"))
    }

    @Test("an upload by curl -T arrives whole: 201 with its SHA-256, stored and recorded; a cut upload is not recorded")
    func upload() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        let local = fixture.directory.appending("local.bin")
        try TransferServer.makeFile(at: local, bytes: 3_000_017, seed: 3)
        let sha = try await TransferServer.sha256(ofFile: local)
        let out = fixture.directory.appending("receipt")
        let result = try await fixture.curl(
            ["-T", local, "-H", "X-Test: one", "-o", out, "-w", "%{http_code}", fixture.server.url("/upload/a/b.bin")])
        #expect(result.output == "201")
        let upload = try #require(fixture.server.uploads.first)
        #expect(upload.sha256 == sha && upload.bytes == 3_000_017 && upload.method == "PUT")
        #expect(upload.headers["x-test"] == "one")
        #expect(upload.file == fixture.directory.appending("uploads/a_b.bin"))
        #expect(try await TransferServer.sha256(ofFile: upload.file) == sha)
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains(sha))

        fixture.server.inject(.cutAfter(bytes: 1_000_000), at: "/upload/cut.bin", times: 1)
        let cut = try await fixture.curl(["-T", local, "-o", "/dev/null", fixture.server.url("/upload/cut.bin")])
        #expect(cut.status != 0)
        #expect(fixture.server.uploads.count == 1)
        // curl may see the cut before the server's handler has written down how it ended.
        #expect(
            await waitUntil { fixture.server.requests(for: "/upload/cut.bin").first?.outcome == .closedEarly },
            "\(fixture.server.requests(for: "/upload/cut.bin"))")
    }

    @Test("HTTPS with the test authority: curl trusts it through --cacert only")
    func https() async throws {
        let fixture = try Fixture(tls: true)
        atTeardown { await fixture.tearDown() }
        #expect(fixture.server.baseURL.hasPrefix("https://127.0.0.1:"))
        let served = try fixture.document("/doc.bin", bytes: 400_000)
        let out = fixture.directory.appending("out")
        let caFile = try #require(fixture.server.caFile)
        let trusted = try await fixture.curl([
            "--cacert", caFile, "-o", out, "-w", "%{http_code}", fixture.server.url("/doc.bin"),
        ])
        #expect(trusted.status == 0 && trusted.output == "200")
        #expect(try await TransferServer.sha256(ofFile: out) == TransferServer.sha256(ofFile: served))
        let byName = try await fixture.curl(
            [
                "--cacert", caFile, "-o", "/dev/null", "-w", "%{http_code}",
                "https://localhost:\(fixture.server.port)/doc.bin",
            ])
        #expect(byName.output == "200")
        let untrusted = try await fixture.curl(["-o", "/dev/null", fixture.server.url("/doc.bin")])
        #expect(untrusted.status == 60, "curl: peer certificate cannot be authenticated")
    }

    @Test("keep-alive: two requests in one curl share a connection")
    func keepAlive() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        try fixture.document("/one", bytes: 1000)
        try fixture.document("/two", bytes: 2000)
        let result = try await fixture.curl(
            ["-o", "/dev/null", "-o", "/dev/null", fixture.server.url("/one"), fixture.server.url("/two")])
        #expect(result.status == 0)
        let connections = fixture.server.requests.map(\.connection)
        #expect(connections.count == 2 && Set(connections).count == 1)
    }

    @Test(
        "drip sends the whole body slowly, stallAfter hangs until the client gives up, changeETag bumps the validator")
    func slowAndChanging() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        let served = try fixture.document("/doc.bin", bytes: 1000)
        // About 4 s of dripping: long enough to be seen part-way on a loaded machine.
        fixture.server.inject(.drip(bytesPerSecond: 250), at: "/doc.bin", times: 1)
        let out = fixture.directory.appending("out")
        // Started at once as a process of its own (a child task could wait for a thread of a
        // busy test run longer than the drip lasts).
        let dripped = try ChildProcess(
            "/usr/bin/curl", ["-s", "-o", out, fixture.server.url("/doc.bin")],
            logPath: fixture.directory.appending("curl.log"))
        // Only the whole body is checked here: watching it part-way is a race a loaded run
        // loses; the transfer tests catch daemons mid-download on dripped bodies.
        #expect(await dripped.waitForExit(timeout: .seconds(30)))
        #expect(dripped.terminationStatus == 0)
        #expect(try await TransferServer.sha256(ofFile: out) == TransferServer.sha256(ofFile: served))

        fixture.server.inject(.stallAfter(bytes: 100), at: "/doc.bin", times: 1)
        let stalled = try await fixture.curl(["--max-time", "2", "-o", out, fixture.server.url("/doc.bin")])
        #expect(stalled.status == 28, "curl: operation timed out")
        #expect(fixture.size(out) == 100)

        let before = try #require(fixture.server.etag(for: "/doc.bin"))
        fixture.server.inject(.changeETag, at: "/doc.bin", times: 1)
        let dump = fixture.directory.appending("headers")
        _ = try await fixture.curl(["-o", "/dev/null", "-D", dump, fixture.server.url("/doc.bin")])
        #expect(try fixture.headers(dump)["etag"] == before, "answered with the validator it had")
        #expect(fixture.server.etag(for: "/doc.bin") != before)
    }

    @Test(
        "64 MiB to a reader that stalls: the server waits for it, a chunk or two in memory, and the bytes arrive whole")
    func streamsLargeFile() async throws {
        let fixture = try Fixture()
        atTeardown { await fixture.tearDown() }
        let served = try fixture.document("/big.bin", bytes: 64 << 20)
        // curl writes into a FIFO nobody reads yet, so it blocks and stops reading the socket.
        let fifo = fixture.directory.appending("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        async let download = fixture.curl(["-o", fifo, fixture.server.url("/big.bin")])
        var last: Int64 = -1
        let stalled = await waitUntil(timeout: .seconds(180), interval: .milliseconds(300)) {
            let sent = fixture.server.requests.first?.bodyBytesSent ?? 0
            defer { last = sent }
            return sent > 0 && sent == last
        }
        // What went out is what the kernel's buffers and curl hold; a server that did not wait
        // for the network would have read and queued the whole file by now.
        let sentWhileStalled = fixture.server.requests.first?.bodyBytesSent ?? 0
        #expect(stalled && sentWhileStalled < 32 << 20, "sent \(sentWhileStalled) bytes to a reader that reads nothing")
        #expect(fixture.server.requests.first?.outcome == .inProgress)
        let digest = try await Tool.run("/bin/sh", ["-c", "sha256sum < \(fifo)"])
        #expect(try await download.status == 0)
        #expect(digest.output.hasPrefix(try await TransferServer.sha256(ofFile: served)))
        #expect(fixture.server.requests.first?.bodyBytesSent == 64 << 20)
        #expect(fixture.server.peakBufferedBytes > 0)
        #expect(fixture.server.peakBufferedBytes <= Int64(2 * TransferServer.chunkSize))
    }
}
