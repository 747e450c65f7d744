import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// An app's data and grants belong to the bundle it was loaded from. Once that bundle is
/// gone, another claiming its identifier inherits nothing until a person adopts it; judged by
/// what the newcomer can do (launch), the grant in `bgctl permissions` and the data that stays.
@Suite("Bundle identity", .timeLimit(.minutes(5)), .tearsDown)
struct BundleIdentityTests {
    @Test(
        "a bundle claiming a removed app's identifier is refused, across a restart, until a person adopts it; then it has the app's grant and data"
    )
    func claimantWaitsForAdoption() async throws {
        var id = ""
        let running = try await LifecycleTests.Running(prefix: "claim") { bundles in
            id = try TestAppBundles.make("Claimed", microphoneUsage: true, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let original = running.bundles + "/Claimed.bundle"
        guard
            case .done = try running.request(.authorize(Authorize(bundle: id, grant: .microphone(.granted))))
        else {
            Issue.record("the person's grant was refused")
            return
        }
        let data = running.dataDirectory(id)
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try "the app's own\n".write(toFile: data + "/notes.txt", atomically: false, encoding: .utf8)

        // The app is removed; another bundle, elsewhere, claims its identifier.
        let staging = running.directory.appending("staging")
        _ = try TestAppBundles.make("Claimed", microphoneUsage: true, into: staging)
        try FileManager.default.removeItem(atPath: original)
        let claimant = running.bundles + "/Newcomer.bundle"
        try FileManager.default.moveItem(atPath: staging + "/Claimed.bundle", toPath: claimant)
        _ = try running.request(.reload)

        func entry(_ daemon: DaemonProcess, _ path: String) throws -> BundleEntry? {
            guard case .bundles(let list) = try daemon.client().request(.bundles).body else {
                throw HarnessError("no BUNDLES")
            }
            return list.bundles.first { $0.path == path }
        }
        let held = try #require(try entry(running.daemon, claimant))
        #expect(held.status == .refused)
        #expect(held.reason?.contains("was the app at \(original), which is gone") == true, "\(held)")
        #expect(held.reason?.contains("bgctl adopt-bundle \(id)") == true)
        // It cannot run, so it reaches neither the grant nor the data.
        guard case .error(let refusedOpen) = try running.request(.open(AppReference(bundle: id))) else {
            Issue.record("the claimant was launched")
            return
        }
        #expect(refusedOpen.code == .notFound || refusedOpen.message.contains("adopt-bundle"), "\(refusedOpen)")

        // A new daemon on the same state directory holds it back too.
        #expect(await running.daemon.stop())
        let again = try await DaemonProcess(
            directory: running.directory, bundleDirectories: [running.bundles],
            extraArguments: LifecycleTests.fastPolicy)
        atTeardown { await again.stop() }
        #expect(try entry(again, claimant)?.status == .refused)

        // Adoption is the person's, for a held bundle only.
        guard
            case .error(let nothingHeld) = try again.client().request(
                .adoptBundle(AppReference(bundle: "org.example.none"))
            ).body
        else {
            Issue.record("adopted a bundle nobody holds")
            return
        }
        #expect(nothingHeld.code == .notFound)
        guard case .done(let adopted) = try again.client().request(.adoptBundle(AppReference(bundle: id))).body else {
            Issue.record("the adoption failed")
            return
        }
        #expect(adopted.detail.contains(claimant))
        #expect(try entry(again, claimant)?.status == .loaded)
        guard case .permissions(let list) = try again.client().request(.permissions(PermissionsQuery(bundle: id))).body
        else { throw HarnessError("no PERMISSIONS") }
        #expect(list.apps.first?.microphone == .granted, "the adopted app keeps the grant")
        #expect(try String(contentsOfFile: data + "/notes.txt", encoding: .utf8) == "the app's own\n")
        guard case .done = try again.client().request(.open(AppReference(bundle: id))).body else {
            Issue.record("the adopted app did not open")
            return
        }
    }
}
