import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The person's music library (issue 24, items 1 and 4): BackgroundPlayer declares
/// `NSAppleMusicUsageDescription`; resumed with nothing queued it asks, the person is asked,
/// and once they allow it the daemon shares the music folder with it, read-only, and it plays
/// (parec hears it). Denied again, the folder is taken back.
@Suite(
    "The person's music library, after consent",
    .enabled(if: AudioFixture.available, "PulseAudio is not installed (scripts/setup.sh installs it)"),
    .enabled(if: geteuid() == 0, "the music folder is root's and out of the app's uid's reach"),
    .timeLimit(.minutes(5)), .tearsDown)
struct MusicLibraryTests {
    @Test(
        "resume with nothing queued asks for the library; allowed, the music folder is shared and plays in full; denied, it is taken back"
    )
    func libraryAfterConsent() async throws {
        let directory = try TemporaryDirectory(prefix: "music-library")
        atTeardown { directory.remove() }
        let pulse = try await PulseAudioServer(directory: directory)
        atTeardown { await pulse.stop() }
        let bundles = directory.appending("bundles")
        try SampleBundles.assemble("BackgroundPlayer", into: bundles)
        // The person's music folder, in a home only they may enter.
        let home = directory.appending("home")
        let music = home + "/Music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        chmod(home, 0o700)
        let blocks = ToneBlocks(count: 4 * 4, sampleRate: 44_100)
        try WAVFile.write(
            samples: blocks.samples(channels: 2), sampleRate: 44_100, channels: 2, to: music + "/01 signal.wav")
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], pulseServer: pulse.server,
            extraArguments: LifecycleTests.fastPolicy + ["--music-directory", music])
        atTeardown { await daemon.stop() }
        #expect(await waitUntil { (try? daemon.status().pulseAudio.state) == .connected })
        let id = AudioFixture.player
        let environment = ["BACKGROUNDER_SOCKET": daemon.socketPath, "BACKGROUNDER_FD": ""]
        func player(_ arguments: String...) async throws -> CLIRun {
            try await CLIRun.run(Locations.product("BackgroundPlayer"), arguments, environment: environment)
        }
        func bgctl(_ arguments: String...) async throws -> CLIRun {
            try await CLIRun.run(Locations.product("bgctl"), arguments + ["--socket", daemon.socketPath])
        }
        func json(_ run: CLIRun, _ key: String) throws -> JSONValue? {
            try JSONValue(text: run.standardOutput)[key]
        }
        let log = {
            (AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(id).log") ?? "")
                .suffix(2000)
        }

        // Nothing queued: the player asks for the library, and says so.
        let asked = try await player("resume")
        #expect(asked.status == 69, "\(asked) \(log())")
        #expect(asked.standardError.contains("you were asked to allow your music library"), "\(asked)")
        let prompts = try await bgctl("prompts", "--json")
        guard case .array(let waiting)? = try json(prompts, "prompts"),
            let prompt = waiting.first(where: { $0["bundle"] == .string(id) })
        else {
            Issue.record("no prompt for the player: \(prompts)")
            return
        }
        #expect(prompt["service"] == .string("media-library"), "\(prompt)")
        #expect(prompt["choices"] == .array([.string("allow"), .string("deny")]))
        #expect(prompt["usage"] == .string("Plays the music in your music folder when you resume with nothing queued."))
        let ps = try await bgctl("ps", "--json")
        guard case .array(let apps)? = try json(ps, "apps") else {
            Issue.record("no apps: \(ps)")
            return
        }
        #expect(
            apps.first { $0["id"] == .string(id) }?["waitsForConsent"] == .array([.string("media-library")]), "\(ps)")
        // Nothing is shared before the person answers.
        #expect(try json(await bgctl("shared", id, "--json"), "shared")?["files"] == .array([]))

        // Allowed: the music folder is shared, read-only, and plays in full.
        guard case .number(let number)? = prompt["id"] else {
            Issue.record("no prompt id: \(prompt)")
            return
        }
        let answer = try await bgctl("answer", String(Int(number)), "allow")
        #expect(answer.status == 0, "\(answer)")
        let shared = try json(await bgctl("shared", id, "--json"), "shared")
        #expect(
            shared?["files"] == .array([.object(["path": .string(music), "directory": .bool(true)])]),
            "\(String(describing: shared))")
        let capture = try await PulseCapture(pulse: pulse, path: directory.appending("capture.raw"))
        let resumed = try await player("resume")
        #expect(resumed.status == 0, "\(resumed) \(log())")
        #expect(
            await waitUntil(timeout: .seconds(60)) {
                guard case .apps(let list)? = try? daemon.client().request(.ps).body else { return false }
                return list.apps.first { $0.id.rawValue == id }?.state == .suspended
            }, "\(log())")
        let report = ToneBlocks.analyze(try await capture.stop(), sampleRate: PulseCapture.sampleRate)
        #expect(report.labels == blocks.expectedLabels, "\(report) \(log())")

        // Denied later: the folder is taken back.
        let denied = try await bgctl("authorize", id, "media-library", "denied")
        #expect(denied.status == 0, "\(denied)")
        #expect(try json(await bgctl("shared", id, "--json"), "shared")?["files"] == .array([]))
        let permissions = try await bgctl("permissions", id, "--json")
        guard case .array(let entries)? = try json(permissions, "apps") else {
            Issue.record("no permissions: \(permissions)")
            return
        }
        #expect(entries.first?["mediaLibrary"] == .string("denied"), "\(permissions)")
    }
}
