import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Background transfers with real processes: a real daemon, a real HTTP server on loopback,
/// apps that hand a download over and are suspended or end. Judged by the bytes that reach
/// the app's data directory (SHA-256 against the served file), what the server was asked,
/// and what the daemon keeps.
@Suite("Background transfers", .serialized, .timeLimit(.minutes(10)), .tearsDown)
struct TransferTests {
    /// An app that hands `urls` over at a person's launch, then exits (`exit`) or stays to
    /// hear them (`serve`); launched or woken for its session, it hears them and completes.
    static func handOff(_ urls: [String], then: String) -> String {
        """
        if CHECKIN["launchReason"] == "user":
            for url in [\(urls.map { "\"\($0)\"" }.joined(separator: ", "))]:
                create(url)
            \(then == "exit" ? "sys.exit(0)" : "serve()")
        else:
            handle_launch_events(CHECKIN)
            serve()
        """
    }

    @Test("an app that ends after handing a download over is launched into its session's events with the file")
    func terminatedAppIsRelaunched() async throws {
        var id = ""
        var sha = ""
        let fixture = try await TransferFixture(
            prefix: "xfer-relaunch", extraArguments: ["--scheduling", "urlSessionWindow=300"]
        ) { _ in }
        atTeardown { await fixture.tearDown() }
        sha = try await fixture.serveFile("/episode.bin", bytes: 3 << 20)
        fixture.server.inject(.drip(bytesPerSecond: 2 << 20), at: "/episode.bin")
        id = try fixture.app("Ender", script: Self.handOff([fixture.server.url("/episode.bin")], then: "exit"))
        _ = try fixture.request(.reload)
        let opened = try fixture.request(.open(OpenApp(bundle: BundleID(id))))

        await waitUntil(timeout: .seconds(60)) { !fixture.reports(id, "finished").isEmpty }
        let finished = try #require(
            fixture.reports(id, "finished").first,
            "\(opened) \(fixture.transfers()) \(String(describing: fixture.state(id))) \(fixture.appLog(id)) \((try? String(contentsOfFile: fixture.dataDirectory(id) + "/report.jsonl", encoding: .utf8)) ?? "no report") \(fixture.daemon.log.split(separator: "\n").filter { !$0.contains("gpsd") }.suffix(30).joined(separator: "\n"))"
        )
        let transfer = try #require(finished["transfer"] as? Int)
        #expect(finished["state"] as? String == "completed")
        #expect(await fixture.downloaded(id, transfer: transfer) == sha)
        let launches = fixture.reports(id, "checkin").compactMap { $0["launchReason"] as? String }
        #expect(launches == ["user", "download"])
        let event = try #require(fixture.reports(id, "event").first)
        #expect(event["session"] as? String == "s1")
        // The completion handler ends the window and the app is suspended at once (before it
        // reads the reply); the window is long here, so nothing else could have suspended it.
        await waitUntil { fixture.state(id) == .suspended }
        #expect(fixture.state(id) == .suspended, "the session's window ended with the completion handler")
        // Acknowledged: the daemon keeps nothing, and no file is left at the old location.
        await fixture.waitForTransfers { $0.isEmpty }
        #expect(fixture.transfers().isEmpty)
    }

    @Test("a suspended app is woken into its session's events, hears the file, and is suspended again")
    func suspendedAppIsWoken() async throws {
        let fixture = try await TransferFixture(prefix: "xfer-wake") { _ in }
        atTeardown { await fixture.tearDown() }
        let sha = try await fixture.serveFile("/big.bin", bytes: 4 << 20)
        // The first response stalls after a megabyte until the test drops it, so the transfer is
        // still running while the app is suspended and listed, however slow the machine (a
        // 4 s drip once finished, and the app acknowledged it, before bgctl listed it); the
        // daemon then resumes it with a Range request.
        fixture.server.inject(.stallAfter(bytes: 1 << 20), at: "/big.bin", times: 1)
        let id = try fixture.app("Sleeper", script: Self.handOff([fixture.server.url("/big.bin")], then: "serve"))
        _ = try fixture.request(.reload)
        _ = try fixture.request(.open(OpenApp(bundle: BundleID(id))))
        await fixture.waitForTransfers { $0.first?.state == .running }
        _ = try fixture.request(.home)
        await waitUntil { fixture.state(id) == .suspended }
        #expect(fixture.state(id) == .suspended)
        #expect(fixture.transfers().first?.state == .running, "the transfer goes on while the app is frozen")
        // A person sees it with bgctl, as a row and as JSON.
        let table = try await BGCtlTests.bgctl(
            ["transfers", "--socket", fixture.daemon.socketPath], in: fixture.directory)
        #expect(table.status == 0)
        #expect(table.output.contains(id) && table.output.contains("running"), "\(table.output)")
        let json = try await BGCtlTests.bgctl(
            ["transfers", "--json", "--socket", fixture.daemon.socketPath], in: fixture.directory)
        let listed = TransferList(transfers: try CLIJSON.decode([TransferInfo].self, "transfers", from: json.output))
        #expect(listed.transfers.map(\.bundle.rawValue) == [id])
        // The daemon's own read timeout may have cut the stall already, which is the same cut.
        await fixture.server.dropConnections()

        await waitUntil(timeout: .seconds(90)) { !fixture.reports(id, "finished").isEmpty }
        let finished = try #require(fixture.reports(id, "finished").first, "\(fixture.appLog(id))")
        #expect(await fixture.downloaded(id, transfer: try #require(finished["transfer"] as? Int)) == sha)
        #expect(fixture.reports(id, "checkin").count == 1, "woken, not relaunched")
        #expect(fixture.reports(id, "event").count == 1)
        await waitUntil { fixture.state(id) == .suspended }
        #expect(fixture.state(id) == .suspended)
    }

    @Test("a 200 MiB download survives a daemon SIGKILL and resumes from where it was, nothing fetched twice")
    func survivesDaemonKill() async throws {
        let fixture = try await TransferFixture(prefix: "xfer-kill") { _ in }
        atTeardown { await fixture.tearDown() }
        let size: Int64 = 200 << 20
        let sha = try await fixture.serveFile("/huge.bin", bytes: size)
        fixture.server.inject(.drip(bytesPerSecond: 40 << 20), at: "/huge.bin")
        let id = try fixture.app("Keeper", script: Self.handOff([fixture.server.url("/huge.bin")], then: "exit"))
        _ = try fixture.request(.reload)
        _ = try fixture.request(.open(OpenApp(bundle: BundleID(id))))
        let before = await fixture.waitForTransfers { ($0.first?.bytesReceived ?? 0) > 40 << 20 }
        let received = try #require(before.first?.bytesReceived)
        #expect(received < size, "the kill must come mid-transfer")
        try await fixture.killAndRestart()
        fixture.server.clearFaults(at: "/huge.bin")

        await waitUntil(timeout: .seconds(120)) { !fixture.reports(id, "finished").isEmpty }
        let finished = try #require(fixture.reports(id, "finished").first, "\(fixture.daemon.log)")
        #expect(finished["state"] as? String == "completed")
        #expect(finished["bytesRefetched"] as? Int == 0)
        #expect(await fixture.downloaded(id, transfer: try #require(finished["transfer"] as? Int)) == sha)
        let asked = fixture.server.requests(for: "/huge.bin")
        let resumed = try #require(asked.last?.range, "the restarted daemon asked for a range: \(asked)")
        let offset = try #require(Int64(resumed.dropFirst("bytes=".count).prefix { $0.isNumber }))
        #expect(offset >= received, "resumed from \(offset), had \(received) before the kill")
        #expect(asked.last?.ifRange == fixture.server.etag(for: "/huge.bin"))
    }

    @Test("a force quit cancels the app's transfers; a jetsam termination does not")
    func forceQuitCancelsJetsamDoesNot() async throws {
        let fixture = try await TransferFixture(prefix: "xfer-quit") { _ in }
        atTeardown { await fixture.tearDown() }
        _ = try await fixture.serveFile("/slow.bin", bytes: 2 << 20)
        fixture.server.inject(.drip(bytesPerSecond: 64 << 10), at: "/slow.bin")
        let sha = try await fixture.serveFile("/other.bin", bytes: 2 << 20, seed: 9)
        fixture.server.inject(.drip(bytesPerSecond: 512 << 10), at: "/other.bin")
        let quitter = try fixture.app("Quitter", script: Self.handOff([fixture.server.url("/slow.bin")], then: "serve"))
        let survivor = try fixture.app(
            "Survivor", script: Self.handOff([fixture.server.url("/other.bin")], then: "serve"))
        _ = try fixture.request(.reload)

        _ = try fixture.request(.open(OpenApp(bundle: BundleID(quitter))))
        await fixture.waitForTransfers { $0.first { $0.bundle.rawValue == quitter }?.state == .running }
        _ = try fixture.request(.quit(AppReference(bundle: BundleID(quitter))))
        let cancelled = await fixture.waitForTransfers {
            $0.first { $0.bundle.rawValue == quitter }?.state == .cancelled
        }
        #expect(cancelled.first { $0.bundle.rawValue == quitter }?.error?.code == .cancelled)
        // Gone once the cancelled attempt is over (its response head may arrive after the
        // cancel and make the file again; the attempt's end removes it).
        let transfers = fixture.daemon.stateDirectory + "/transfers"
        func partials() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: transfers)) ?? ["?"] }
        #expect(await waitUntil { partials().isEmpty }, "a cancelled transfer leaves no partial file: \(partials())")

        _ = try fixture.request(.open(OpenApp(bundle: BundleID(survivor))))
        await fixture.waitForTransfers { $0.first { $0.bundle.rawValue == survivor }?.state == .running }
        _ = try fixture.request(.home)
        await waitUntil { fixture.state(survivor) == .suspended }
        _ = try fixture.request(.memoryPressure(MemoryPressure(critical: false)))
        await waitUntil { fixture.state(survivor) == .notRunning }
        #expect(fixture.state(survivor) == .notRunning, "jetsam ended the suspended app")
        await waitUntil(timeout: .seconds(60)) { !fixture.reports(survivor, "finished").isEmpty }
        let finished = try #require(fixture.reports(survivor, "finished").first, "\(fixture.appLog(survivor))")
        #expect(finished["state"] as? String == "completed")
        #expect(await fixture.downloaded(survivor, transfer: try #require(finished["transfer"] as? Int)) == sha)
        #expect(
            fixture.reports(survivor, "checkin").compactMap { $0["launchReason"] as? String } == ["user", "download"])
    }
}
