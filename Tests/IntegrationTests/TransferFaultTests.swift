import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Background transfers against a server that misbehaves, and apps that ask for what they
/// must not get. Each transfer ends resumed, restarted or cleanly failed with a clear error,
/// and a file reported finished always has the server's bytes (SHA-256).
@Suite("Background transfers: faults and hostile apps", .serialized, .timeLimit(.minutes(5)), .tearsDown)
struct TransferFaultTests {
    @Test("cut, 503 with Retry-After, short, long, changed ETag, ignored Range: each ends with the server's bytes")
    func faultsEndWithTheServersBytes() async throws {
        let fixture = try await TransferFixture(prefix: "xfer-faults") { _ in }
        atTeardown { await fixture.tearDown() }
        let server = fixture.server
        var sums: [String: String] = [:]
        for (index, path) in ["/cut", "/busy", "/short", "/long", "/etag", "/norange"].enumerated() {
            sums[path] = try await fixture.serveFile(path, bytes: 1 << 20, seed: UInt64(index + 1))
        }
        server.inject(.cutAfter(bytes: 300_000), at: "/cut", times: 1)
        server.inject(.status(503, retryAfter: 1), at: "/busy", times: 2)
        server.inject(.shortBody(missing: 1000), at: "/short", times: 1)
        server.inject(.longBody(extra: 1024), at: "/long", times: 1)
        server.inject(.cutAfter(bytes: 200_000), at: "/etag", times: 1)
        server.inject(.changeETag, at: "/etag", times: 1)
        server.inject(.ignoreRange, at: "/norange")
        server.inject(.cutAfter(bytes: 200_000), at: "/norange", times: 1)
        server.inject(.redirect(to: "/loop-b"), at: "/loop-a")
        server.inject(.redirect(to: "/loop-a"), at: "/loop-b")
        let paths = ["/cut", "/busy", "/short", "/long", "/etag", "/norange", "/loop-a", "/missing"]
        let id = try fixture.app("Faulty", script: TransferTests.handOff(paths.map(server.url), then: "exit"))
        _ = try fixture.request(.reload)
        _ = try fixture.request(.open(OpenApp(bundle: BundleID(id))))

        await waitUntil(timeout: .seconds(90)) { fixture.reports(id, "finished").count == paths.count }
        var byPath: [String: [String: Any]] = [:]
        for report in fixture.reports(id, "finished") {
            let request = report["request"] as? [String: Any]
            guard let url = request?["url"] as? String, let path = paths.first(where: { url.hasSuffix($0) }) else {
                continue
            }
            byPath[path] = report
        }
        #expect(byPath.count == paths.count, "\(fixture.appLog(id))\n\(fixture.daemon.log.suffix(4000))")
        for path in ["/cut", "/busy", "/short", "/long", "/etag", "/norange"] {
            let report = try #require(byPath[path], "no end for \(path)")
            #expect(report["state"] as? String == "completed", "\(path): \(report)")
            let transfer = try #require(report["transfer"] as? Int)
            #expect(await fixture.downloaded(id, transfer: transfer) == sums[path], "\(path)")
        }
        // Resumed where the server allowed it, nothing fetched twice.
        #expect(server.requests(for: "/cut").last?.range == "bytes=300000-")
        #expect(byPath["/cut"]?["bytesRefetched"] as? Int == 0)
        #expect((byPath["/busy"]?["retries"] as? Int ?? 0) >= 2)
        // Restarted where it did not: what was on disk counted as fetched again.
        #expect((byPath["/etag"]?["bytesRefetched"] as? Int ?? 0) > 0)
        #expect((byPath["/norange"]?["bytesRefetched"] as? Int ?? 0) > 0)
        // A redirect loop fails with its reason; a 404 completes with its status, as on iOS.
        let loop = byPath["/loop-a"]?["error"] as? [String: Any]
        #expect(byPath["/loop-a"]?["state"] as? String == "failed")
        #expect(loop?["code"] as? String == "httpTooManyRedirects")
        let missing = byPath["/missing"]?["response"] as? [String: Any]
        #expect(byPath["/missing"]?["state"] as? String == "completed")
        #expect(missing?["status"] as? Int == 404)
    }

    @Test("an upload sends the app's file whole; HTTPS is trusted through --trust-ca-file and refused without it")
    func uploadAndHTTPS() async throws {
        let fixture = try await TransferFixture(prefix: "xfer-tls", tls: true) { _ in }
        atTeardown { await fixture.tearDown() }
        let sha = try await fixture.serveFile("/secure.bin", bytes: 1 << 20)
        let id = try fixture.app(
            "Uploader",
            script: """
                if CHECKIN["launchReason"] == "user":
                    path = os.path.join(DATA, "outbox.bin")
                    with open(path, "wb") as f:
                        f.write(bytes(range(256)) * 12288)
                    create("\(fixture.server.url("/upload/outbox.bin"))", kind="upload", file=path, method="PUT")
                    create("\(fixture.server.url("/secure.bin"))")
                serve()
                """)
        _ = try fixture.request(.reload)
        _ = try fixture.request(.open(OpenApp(bundle: BundleID(id))))
        await waitUntil(timeout: .seconds(60)) { fixture.reports(id, "finished").count == 2 }
        let reports = fixture.reports(id, "finished")
        let upload = try #require(
            reports.first { ($0["request"] as? [String: Any])?["kind"] as? String == "upload" },
            "\(fixture.transfers()) \(fixture.appLog(id)) \((try? String(contentsOfFile: fixture.dataDirectory(id) + "/report.jsonl", encoding: .utf8)) ?? "")"
        )
        #expect((upload["response"] as? [String: Any])?["status"] as? Int == 201)
        let sent = Data((0..<12288).flatMap { _ in (0..<256).map { UInt8($0) } })
        let received = try #require(fixture.server.uploads.first)
        #expect(try Data(contentsOf: URL(fileURLWithPath: received.file)) == sent)
        let download = try #require(
            reports.first { ($0["request"] as? [String: Any])?["kind"] as? String == "download" })
        #expect(await fixture.downloaded(id, transfer: try #require(download["transfer"] as? Int)) == sha)

        // The same server is not trusted by a daemon that was not told of its authority.
        let untrusting = try await TransferFixture(prefix: "xfer-untrusted") { _ in }
        atTeardown { await untrusting.tearDown() }
        let doubter = try untrusting.app(
            "Doubter", script: TransferTests.handOff([fixture.server.url("/secure.bin")], then: "serve"))
        _ = try untrusting.request(.reload)
        _ = try untrusting.request(.open(OpenApp(bundle: BundleID(doubter))))
        await waitUntil(timeout: .seconds(60)) { !untrusting.reports(doubter, "finished").isEmpty }
        let refused = try #require(untrusting.reports(doubter, "finished").first)
        #expect(refused["state"] as? String == "failed")
        #expect((refused["error"] as? [String: Any])?["code"] as? String == "secureConnectionFailed")
    }

    @Test(
        "a hostile app can neither upload files not its own (a link, a FIFO that would block the daemon), nor inject headers, nor touch another app's transfers"
    )
    func hostileApp() async throws {
        let fixture = try await TransferFixture(prefix: "xfer-hostile") { _ in }
        atTeardown { await fixture.tearDown() }
        let sha = try await fixture.serveFile("/victim.bin", bytes: 1 << 20)
        fixture.server.inject(.drip(bytesPerSecond: 256 << 10), at: "/victim.bin")
        let victim = try fixture.app(
            "Victim", script: TransferTests.handOff([fixture.server.url("/victim.bin")], then: "serve"))
        let upload = fixture.server.url("/upload/stolen")
        let hostile = try fixture.app(
            "Hostile",
            script: """
                os.symlink("/etc/shadow", os.path.join(DATA, "innocent"))
                os.mkfifo(os.path.join(DATA, "pipe"))
                attempts = {
                    "scheme": create("file:///etc/shadow"),
                    "ftp": create("ftp://127.0.0.1/x"),
                    "shadow": create("\(upload)", kind="upload", file="/etc/shadow"),
                    "symlink": create("\(upload)", kind="upload", file=os.path.join(DATA, "innocent")),
                    "relative": create("\(upload)", kind="upload", file="../../../etc/shadow"),
                    "fifo": create("\(upload)", kind="upload", file=os.path.join(DATA, "pipe")),
                    "no file": create("\(upload)", kind="upload"),
                    "header": create("\(fixture.server.url("/x"))", headers={"X-A": "1\\r\\nHost: evil"}),
                    "method": create("\(fixture.server.url("/x"))", method="GET /etc/passwd HTTP/1.1"),
                    "list": request({"class": "TRANSFERS"}),
                }
                for name, reply in attempts.items():
                    report("attempt", {"name": name, "reply": reply})
                for victim in range(1, 30):
                    report("poke", {"ack": request({"class": "TRANSFER_ACK", "transfer": victim}),
                                    "cancel": request({"class": "TRANSFER_CANCEL", "transfer": victim})})
                report("done", {})
                serve()
                """)
        _ = try fixture.request(.reload)
        _ = try fixture.request(.open(OpenApp(bundle: BundleID(victim))))
        await fixture.waitForTransfers { $0.first { $0.bundle.rawValue == victim }?.state == .running }
        _ = try fixture.request(.open(OpenApp(bundle: BundleID(hostile))))
        await waitUntil(timeout: .seconds(30)) { !fixture.reports(hostile, "done").isEmpty }

        // Every attempt was refused, naming the field.
        let attempts = fixture.reports(hostile, "attempt")
        #expect(attempts.count == 10, "\(fixture.appLog(hostile))")
        for attempt in attempts {
            let reply = attempt["reply"] as? [String: Any]
            #expect(reply?["class"] as? String == "ERROR", "\(attempt)")
        }
        func message(_ name: String) -> String {
            let attempt = attempts.first { $0["name"] as? String == name }
            return (attempt?["reply"] as? [String: Any])?["message"] as? String ?? ""
        }
        #expect(message("ftp").hasPrefix("url:"))
        #expect(message("shadow").contains("not in the app's own"))
        #expect(message("symlink").contains("not in the app's own"))
        // A FIFO nobody writes to: opening it must not hold the daemon until a writer comes.
        #expect(message("fifo").contains("not a regular file"), "\(message("fifo"))")
        #expect(message("header").hasPrefix("headers:"))
        #expect(message("method").hasPrefix("method:"))
        // The outcome: nothing was uploaded, the daemon holds no transfer of the hostile app,
        // and the victim's download went on to the end.
        #expect(fixture.server.uploads.isEmpty)
        #expect(!fixture.transfers().contains { $0.bundle.rawValue == hostile })
        await waitUntil(timeout: .seconds(60)) { !fixture.reports(victim, "finished").isEmpty }
        let finished = try #require(fixture.reports(victim, "finished").first)
        #expect(finished["state"] as? String == "completed")
        #expect(await fixture.downloaded(victim, transfer: try #require(finished["transfer"] as? Int)) == sha)
    }

    @Test(
        "a disk that fills fails the download with a clear error and no partial file; the daemon serves on",
        .enabled(if: SmallTmpfs.canMount, "mounting a tmpfs needs root and mount(2)"))
    func diskFull() async throws {
        let fixture = try await TransferFixture(prefix: "xfer-full", stateDiskSize: "6m") { _ in }
        atTeardown { await fixture.tearDown() }
        _ = try await fixture.serveFile("/large.bin", bytes: 16 << 20)
        let id = try fixture.app(
            "Hoarder", script: TransferTests.handOff([fixture.server.url("/large.bin")], then: "serve"))
        _ = try fixture.request(.reload)
        _ = try fixture.request(.open(OpenApp(bundle: BundleID(id))))
        await waitUntil(timeout: .seconds(60)) { !fixture.reports(id, "finished").isEmpty }
        let failed = try #require(fixture.reports(id, "finished").first, "\(fixture.daemon.log.suffix(3000))")
        #expect(failed["state"] as? String == "failed")
        let error = failed["error"] as? [String: Any]
        #expect(error?["code"] as? String == "cannotWriteToFile")
        let message = error?["message"] as? String ?? ""
        #expect(message.contains("No space left on device"), "\(message)")
        #expect(fixture.partialFiles(id).isEmpty)
        #expect(throws: Never.self) { try fixture.daemon.status() }
    }

    @Test(
        "downloads past the policy's disk cap, announced or not, fail with dataLengthExceedsMaximum and leave nothing; one within it completes"
    )
    func diskCapCountsWhatArrives() async throws {
        let cap = 4 << 20
        let fixture = try await TransferFixture(
            prefix: "xfer-cap", extraArguments: ["--scheduling", "transferDiskBytes=\(cap)"]
        ) { _ in }
        atTeardown { await fixture.tearDown() }
        // One says its 64 MiB in Content-Length, one says nothing and streams 64 MiB: only
        // counting what arrives stops the second (it received 8.7 GiB before this check).
        _ = try await fixture.serveFile("/announced.bin", bytes: 64 << 20)
        _ = try await fixture.serveFile("/streamed.bin", bytes: 64 << 20, seed: 8)
        fixture.server.inject(.noLength, at: "/streamed.bin")
        let small = try await fixture.serveFile("/small.bin", bytes: 1 << 20, seed: 9)
        fixture.server.inject(.noLength, at: "/small.bin")
        let urls = ["/announced.bin", "/streamed.bin", "/small.bin"].map { fixture.server.url($0) }
        let id = try fixture.app("Hoarder", script: TransferTests.handOff(urls, then: "serve"))
        _ = try fixture.request(.reload)
        _ = try fixture.request(.open(OpenApp(bundle: BundleID(id))))
        await waitUntil(timeout: .seconds(60)) { fixture.reports(id, "finished").count == 3 }
        let finished = fixture.reports(id, "finished")
        func outcome(_ path: String) -> [String: Any]? {
            finished.first { ($0["request"] as? [String: Any])?["url"] as? String == fixture.server.url(path) }
        }
        for path in ["/announced.bin", "/streamed.bin"] {
            let failed = try #require(outcome(path), "\(path): \(finished) \(fixture.appLog(id))")
            #expect(failed["state"] as? String == "failed", "\(path)")
            let error = failed["error"] as? [String: Any]
            #expect(error?["code"] as? String == "dataLengthExceedsMaximum", "\(path): \(failed)")
            let message = error?["message"] as? String ?? ""
            #expect(message.contains("the policy leaves this app's transfers"), "\(path): \(message)")
        }
        let completed = try #require(outcome("/small.bin"), "\(finished)")
        #expect(completed["state"] as? String == "completed")
        #expect(await fixture.downloaded(id, transfer: try #require(completed["transfer"] as? Int)) == small)
        // The outcome on disk: no partial file of the refused ones is left, in the daemon's
        // state or in the app's volume.
        #expect(fixture.partialFiles(id).isEmpty, "\(fixture.partialFiles(id))")
        #expect(throws: Never.self) { try fixture.daemon.status() }
    }
}
