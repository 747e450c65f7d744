import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// The acceptance of background transfers through BackgroundKit's `URLSession`: the TestApp
/// hands downloads over, is suspended or ends, and hears them through
/// `handleEventsForBackgroundURLSession`, `didFinishDownloadingTo` (it moves the file to
/// `DATA/downloads/ID`) and `urlSessionDidFinishEvents`.
@Suite("Background URLSession through BackgroundKit", .serialized)
struct TransferKitTests {
    /// The transfer identifiers an app's log says it moved into `DATA/downloads/`.
    static func downloaded(_ log: String) -> [Int] {
        log.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("downloaded ") else { return nil }
            return Int(line.dropFirst("downloaded ".count).prefix { $0.isNumber })
        }
    }

    @Test(
        "a terminated app and a suspended app each get their download through handleEventsForBackgroundURLSession",
        arguments: ["transfer-download-exit", "transfer-download"])
    func relaunchedOrWoken(behavior: String) async throws {
        let fixture = try await TransferFixture(prefix: "xfer-kit") { _ in }
        defer { Task { await fixture.tearDown() } }
        let sha = try await fixture.serveFile("/episode.wav", bytes: 3 << 20)
        fixture.server.inject(.drip(bytesPerSecond: 1 << 20), at: "/episode.wav")
        let id = try TestAppBundles.make(
            "Kit", behavior: behavior,
            extraKeys: ["TestAppTransferURLs": .strings([fixture.server.url("/episode.wav")])],
            into: fixture.bundles)
        _ = try fixture.request(.reload)
        _ = try fixture.request(.open(AppReference(bundle: id)))
        await fixture.waitForTransfers { $0.first?.state == .running }
        if behavior == "transfer-download" {
            _ = try fixture.request(.home)
            await waitUntil { fixture.state(id) == .suspended }
            #expect(fixture.state(id) == .suspended, "\(fixture.appLog(id))")
        } else {
            // Ended: seen not running, or (on a loaded machine, where the download can finish
            // between two looks) already relaunched for it, which only an ended app is.
            let ended = { fixture.state(id) == .notRunning || fixture.appLog(id).contains("launched download") }
            await waitUntil { ended() }
            #expect(ended(), "the app ended after handing over: \(fixture.appLog(id))")
        }

        await waitUntil(timeout: .seconds(60)) { fixture.appLog(id).contains("finished events org.test.transfers") }
        let log = fixture.appLog(id)
        #expect(log.contains("handle events org.test.transfers"), "\(log)")
        #expect(log.contains("finished events org.test.transfers"), "\(log)")
        let transfer = try #require(Self.downloaded(log).first, "\(log)")
        #expect(log.contains("completed \(transfer) status 200 error none"), "\(log)")
        #expect(await fixture.downloaded(id, transfer: transfer) == sha)
        // Heard and acknowledged: the daemon keeps nothing, and the app is suspended again
        // once its completion handler ended the window.
        await fixture.waitForTransfers { $0.isEmpty }
        #expect(fixture.transfers().isEmpty)
        await waitUntil { fixture.state(id) == .suspended }
        #expect(fixture.state(id) == .suspended)
        let launches = log.split(separator: "\n").filter { $0.hasPrefix("launched") }
        #expect(launches.count == (behavior == "transfer-download" ? 1 : 2), "\(log)")
    }
}
