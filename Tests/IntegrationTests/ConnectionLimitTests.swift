import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

/// The daemon's connection caps: each is reached for real, the daemon says which, and it
/// goes on serving everyone else.
@Suite("Connection limits", .timeLimit(.minutes(5)), .tearsDown)
struct ConnectionLimitTests {
    @Test("one person may hold at most the per-principal number of connections; closing one makes room")
    func perPrincipal() async throws {
        let fixture = try await DaemonFixture(prefix: "conns")
        atTeardown { await fixture.tearDown() }
        let limit = ControlServer.maximumConnectionsPerPrincipal
        var held: [ControlClient] = []
        for _ in 0..<limit {
            held.append(try fixture.daemon.client())
        }
        // Each of those was greeted and answers; the next one is refused outright.
        guard case .status = try held[limit - 1].request(.status).body else {
            Issue.record("the last connection within the limit is not served")
            return
        }
        #expect(throws: ControlClientError.self) { _ = try fixture.daemon.client(timeout: .seconds(5)) }
        #expect(await waitUntil { fixture.daemon.log.contains("the most one may hold") })
        held.removeLast()
        #expect(await waitUntil { (try? fixture.daemon.status()) != nil }, "room again after one closed")
        #expect(fixture.daemon.isRunning)
    }

    @Test(
        "the connections handed to apps at launch do not count toward the total: more apps than it run, and a person is still served"
    )
    func launchConnectionsAreNotCounted() async throws {
        let directory = try TemporaryDirectory(prefix: "handed")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        let ids = try (0..<4).map { index in
            try PythonAppBundles.make(
                "Handed\(index)", script: PythonAppBundles.checkIn + "\nwhile True:\n    time.sleep(3600)",
                into: bundles)
        }
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: ["--max-connections", "2"])
        atTeardown { await daemon.stop() }
        for id in ids {
            _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        }
        // Each of the four checked in on the connection it was handed, though the daemon
        // serves two at once through its sockets.
        let log = { (id: String) in
            AppLogFile.text(atPath: directory.appending("state/logs/\(id).log")) ?? ""
        }
        for id in ids {
            #expect(await waitUntil { log(id).contains("checkin {\"class\": \"CHECKIN\"") }, "\(id): \(log(id))")
        }
        #expect(!daemon.log.contains("the most the daemon serves at once"), "\(daemon.log)")
        // The total still holds for connections through the socket: two held, a third refused.
        let held = try [daemon.client(), daemon.client()]
        guard case .status = try held[1].request(.status).body else {
            Issue.record("the second connection within the limit is not served")
            return
        }
        #expect(throws: ControlClientError.self) { _ = try daemon.client(timeout: .seconds(5)) }
        #expect(await waitUntil { daemon.log.contains("the most the daemon serves at once") })
        #expect(daemon.isRunning)
    }

    @Test("a client that pipelines far more replies than it reads is cut off at the queued-bytes cap")
    func queuedBytes() async throws {
        let directory = try TemporaryDirectory(prefix: "queued")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        // Enough bundles that each BUNDLES reply is tens of kilobytes.
        for index in 0..<300 {
            try PythonAppBundles.make("Filler\(index)", script: "burn()", into: bundles)
        }
        let daemon = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        atTeardown { await daemon.stop() }
        // Busy reading 300 bundles, the daemon may answer a status late: asked again, not failed.
        #expect(await waitUntil { (try? daemon.status())?.bundles.loaded == 300 })

        let greedy = try daemon.client(timeout: .seconds(30))
        let request = Data(#"{"class":"BUNDLES"}"#.utf8) + Data("\n".utf8)
        try greedy.writeAll(Data((0..<3000).map { _ in request }.joined()))
        #expect(
            await waitUntil(timeout: .seconds(30)) { daemon.log.contains("bytes of replies unread") },
            "the daemon cut the client off at the cap, before the stalled-reader timeout")
        #expect(!daemon.log.contains("has not read its replies"))
        var received = 0
        while (try? greedy.receive()) != nil { received += 1 }
        #expect(received < 3000)
        // Everyone else is served; under load the daemon may still be writing the replies it
        // owed the greedy client when it was cut off, so a late answer is asked again.
        #expect(await waitUntil { (try? daemon.status())?.bundles.loaded == 300 }, "everyone else is served")
    }
}
