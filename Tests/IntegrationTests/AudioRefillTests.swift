import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

extension RealTimeSuites {
    /// BackgroundPlayer against a real PulseAudio, with nothing to do in the background but
    /// keep its ring full: the daemon freezes it between refills (docs/AUDIO.md), and what
    /// `parec` records from the null sink's monitor must still be the whole signal.
    @Suite(
        "A background player frozen between refills",
        .enabled(if: AudioFixture.available, "PulseAudio is not installed (scripts/setup.sh installs it)"),
        .timeLimit(.minutes(10)), .tearsDown
    )
    struct AudioRefillTests {
        /// The kernel says frozen while the life cycle says running in the background.
        static func frozenForRefill(_ fixture: AudioFixture, pid: Int32) -> Bool {
            guard let app = try? fixture.app(AudioFixture.player) else { return false }
            return app.state == .background && app.frozenForRefill == true && SuspensionEvidence.cgroupFrozen(pid)
        }

        static func freezes(_ fixture: AudioFixture) -> Int {
            ((try? fixture.app(AudioFixture.player))?.refillFreezes) ?? 0
        }

        @Test(
            "sent home, the player is frozen between refills, refill after refill, and its music arrives whole; a person's pause reaches it frozen"
        )
        func frozenBetweenRefills() async throws {
            try await AudioFixture.run(prefix: "audio-refill") {
                try SampleBundles.assemble("BackgroundPlayer", into: $0)
            } test: { fixture in
                let (blocks, path) = try fixture.signal(seconds: 20)
                let capture = try await fixture.capture("capture.raw")
                _ = try fixture.request(.open(OpenApp(bundle: BundleID(AudioFixture.player))))
                #expect(await waitUntil { (try? fixture.app(AudioFixture.player).state) == .active })
                _ = try await fixture.command(.play, path)
                #expect(try await fixture.waitUntilPlaying(), "log: \(fixture.appLog(AudioFixture.player))")
                // In front, a person may be using it: never frozen.
                #expect(try fixture.app(AudioFixture.player).refillFreezes == nil)

                _ = try fixture.request(.home)
                let pid = try #require(try fixture.app(AudioFixture.player).pid)
                #expect(
                    await waitUntil { Self.frozenForRefill(fixture, pid: pid) },
                    "\(String(describing: try? fixture.app(AudioFixture.player)))")
                // Thawed when its ring runs low, frozen again once the player filled it.
                let first = Self.freezes(fixture)
                #expect(
                    await waitUntil { Self.freezes(fixture) >= first + 3 },
                    "\(String(describing: try? fixture.app(AudioFixture.player)))")

                // The signal ends: the player drains, pauses and is suspended, the life cycle's
                // freeze now.
                let suspended = await fixture.waitUntilSuspended(AudioFixture.player, timeout: .seconds(180))
                #expect(suspended, "log: \(fixture.appLog(AudioFixture.player).suffix(1500))")
                let samples = try await capture.stop()
                let report = ToneBlocks.analyze(samples, sampleRate: PulseCapture.sampleRate)
                #expect(report.labels == blocks.expectedLabels, "\(report)")
                #expect(report.problems(from: 0.2).isEmpty, "\(report)")
                let app = try fixture.app(AudioFixture.player)
                #expect(app.audioUnderruns == 0, "\(app)")
                #expect(app.frozenForRefill == false && (app.refillFrozenSeconds ?? 0) > 0, "\(app)")

                // Its own command wakes it; frozen for a refill again, it hears a pause.
                _ = try await fixture.command(.play, path)
                #expect(try await fixture.waitUntilPlaying())
                #expect(await waitUntil { (try? fixture.app(AudioFixture.player).frozenForRefill) == true })
                _ = try await fixture.command(.pause)
                #expect(
                    await waitUntil { (try? fixture.stream(AudioFixture.player))??.state == "paused" },
                    "\(String(describing: try? fixture.stream(AudioFixture.player)))")
            }
        }
    }
}
