import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Each app's processes carry its state's `oom_score_adj`, read back from /proc: the app in
/// front is the kernel's last choice, a suspended one its first.
@Suite("Resource bands with real processes", .timeLimit(.minutes(5)), .tearsDown)
struct ResourceBandIntegrationTests {
    static func adjustment(_ pid: Int32) -> Int? {
        (try? String(contentsOfFile: "/proc/\(pid)/oom_score_adj", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    @Test("in front 0, suspended 900, in front again 0; bgctl status says what the kernel is told")
    func followsTheState() async throws {
        var id = ""
        let running = try await LifecycleTests.Running(prefix: "bands") { bundles in
            id = try TestAppBundles.make("Banded", behavior: "fork-children", into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        let pid = try #require(try running.app(id).pid)
        await waitUntil { Self.adjustment(pid) == ResourceBand.forState(.active).oomScoreAdjustment }
        #expect(Self.adjustment(pid) == 0)

        _ = try running.request(.home)
        await waitUntil { (try? running.app(id).state) == .suspended }
        #expect(Self.adjustment(pid) == ResourceBand.forState(.suspended).oomScoreAdjustment)
        // Every process of the app, its children too.
        let children = running.appLog(id).split(separator: "\n").compactMap { line in
            line.hasPrefix("child ") ? Int32(line.dropFirst("child ".count)) : nil
        }
        #expect(children.count == 2, "\(running.appLog(id))")
        for child in children { #expect(Self.adjustment(child) == 900, "child \(child)") }

        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        await waitUntil { Self.adjustment(pid) == 0 }
        #expect(Self.adjustment(pid) == 0)

        guard case .status(let status) = try running.request(.status) else { throw HarnessError("no STATUS") }
        #expect(status.resources?.contains("oom_score_adj by state") == true, "\(status.resources ?? "none")")
    }
}
