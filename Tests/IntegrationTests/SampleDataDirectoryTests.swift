import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// The samples' command lines find the app's data directory by asking the daemon they talk
/// to (`DATA_DIRECTORY`), so a daemon with its own `--state-dir` and socket needs only
/// `BACKGROUNDER_SOCKET` set; with no daemon on the default socket they read the default state
/// directory and say so; a named daemon that does not answer is an error, never a guess.
@Suite("Samples' command lines find the daemon's data directory", .timeLimit(.minutes(5)), .tearsDown)
struct SampleDataDirectoryTests {
    static let hike = "org.backgrounder.samples.hikerecorder"
    static let feed = "org.backgrounder.samples.feedreader"

    /// Runs a sample's command line with `environment` on top of this process's, as a person
    /// at a shell. `XDG_STATE_HOME` and `XDG_RUNTIME_DIR` point into `directory` unless given,
    /// so the defaults are the test's own and nothing under the real home is read.
    private func run(
        _ sample: String, _ arguments: [String], environment: [String: String], in directory: TemporaryDirectory
    ) async throws -> (status: Int32?, output: String) {
        let defaults = [
            "XDG_STATE_HOME": directory.appending("xdg-state"), "XDG_RUNTIME_DIR": directory.appending("xdg-run"),
            "BACKGROUNDER_DATA_DIR": "",
        ]
        let process = try ChildProcess(
            Locations.product(sample), arguments, environment: defaults.merging(environment) { $1 },
            logPath: directory.appending("\(sample)-\(UUID().uuidString.prefix(6)).log"))
        #expect(await process.waitForExit(timeout: .seconds(60)))
        return (process.terminationStatus, process.output)
    }

    @Test("with only BACKGROUNDER_SOCKET set, HikeRecorder and FeedReader read and write the daemon's data directory")
    func asksTheDaemon() async throws {
        let directory = try TemporaryDirectory(prefix: "sdd")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        try SampleBundles.assemble("HikeRecorder", into: bundles)
        try SampleBundles.assemble("FeedReader", into: bundles)
        let daemon = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        atTeardown { await daemon.stop() }
        #expect(!daemon.stateDirectory.hasPrefix(directory.appending("xdg-state")), "not the default")
        let socket = ["BACKGROUNDER_SOCKET": daemon.socketPath]

        let stats = try await run("HikeRecorder", ["stats"], environment: socket, in: directory)
        #expect(stats.status == 0, "\(stats.output)")
        #expect(stats.output == "no fixes yet in \(daemon.stateDirectory)/data/\(Self.hike)/track.log\n")

        let subscribe = try await run(
            "FeedReader", ["subscribe", "http://127.0.0.1:9/feed.xml"], environment: socket, in: directory)
        #expect(subscribe.status == 0, "\(subscribe.output)")
        let source = daemon.stateDirectory + "/data/\(Self.feed)/feed.url"
        #expect(
            (try? String(contentsOfFile: source, encoding: .utf8)) == "http://127.0.0.1:9/feed.xml\n",
            "written where the daemon's app reads it: \(subscribe.output)")
        let items = try await run("FeedReader", ["items"], environment: socket, in: directory)
        #expect(items.output == "nothing fetched yet (\(daemon.stateDirectory)/data/\(Self.feed)/items.json)\n")

        // --state-dir still wins, without asking.
        let other = directory.appending("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        let override = try await run(
            "HikeRecorder", ["stats", "--state-dir", other], environment: socket, in: directory)
        #expect(override.output == "no fixes yet in \(other)/data/\(Self.hike)/track.log\n")
    }

    @Test("the daemon answers DATA_DIRECTORY for loaded apps, and says why for others")
    func theRequest() async throws {
        let fixture = try await DaemonFixture(prefix: "sddr")
        atTeardown { await fixture.tearDown() }
        let daemon = fixture.daemon
        let client = try daemon.client()
        let hello = "org.backgrounder.samples.hello"
        let reply = try client.request(.dataDirectory(AppReference(bundle: BundleID(hello))))
        guard case .dataDirectory(let answer) = reply.body else {
            Issue.record("expected DATA_DIRECTORY, got \(reply)")
            return
        }
        #expect(answer == AppDataDirectory(bundle: BundleID(hello), path: daemon.stateDirectory + "/data/" + hello))

        for (bundle, code, words) in [
            ("org.example.nothere", ProtocolError.Code.notFound, "no such bundle is loaded"),
            ("../../etc", .badRequest, "bundle is not a bundle identifier"),
        ] {
            let refused = try client.request(.dataDirectory(AppReference(bundle: BundleID(bundle))))
            guard case .error(let error) = refused.body else {
                Issue.record("\(bundle) was answered: \(refused)")
                continue
            }
            #expect(error.code == code, "\(error)")
            #expect(error.message.contains(words), "\(error)")
        }
        // An app no longer loaded is still answered while its data is there.
        let gone = "org.example.gone"
        try FileManager.default.createDirectory(
            atPath: daemon.stateDirectory + "/data/" + gone, withIntermediateDirectories: true)
        guard case .dataDirectory = try client.request(.dataDirectory(AppReference(bundle: BundleID(gone)))).body else {
            Issue.record("the data of an app no longer loaded was not found")
            return
        }
    }

    @Test(
        "no daemon on the default socket: the default state directory, said; a named daemon that is not there: exit 69")
    func withoutADaemon() async throws {
        let directory = try TemporaryDirectory(prefix: "sddn")
        atTeardown { directory.remove() }
        let defaultSocket = directory.appending("xdg-run") + "/backgrounder/backgrounderd.sock"
        let defaultData = directory.appending("xdg-state") + "/backgrounder/data/\(Self.hike)"

        let guessed = try await run("HikeRecorder", ["stats"], environment: ["BACKGROUNDER_SOCKET": ""], in: directory)
        #expect(guessed.status == 0, "\(guessed.output)")
        #expect(
            guessed.output.contains(
                "HikeRecorder: no daemon answers on \(defaultSocket); reading the default state directory's \(defaultData)"
            ),
            "\(guessed.output)")
        #expect(guessed.output.hasSuffix("no fixes yet in \(defaultData)/track.log\n"), "\(guessed.output)")

        let named = directory.appending("nobody.sock")
        let refused = try await run(
            "HikeRecorder", ["stats"], environment: ["BACKGROUNDER_SOCKET": named], in: directory)
        #expect(refused.status == 69, "\(refused.output)")
        #expect(refused.output.contains("cannot ask the daemon where \(Self.hike) keeps its data"), "\(refused.output)")
        #expect(refused.output.contains("nothing listens on \(named)"), "\(refused.output)")
        #expect(refused.output.contains("--state-dir DIR"), "\(refused.output)")
        #expect(!refused.output.contains("no fixes yet"), "no guess when the person named a daemon")

        // Help needs no daemon.
        let help = try await run("FeedReader", ["help"], environment: ["BACKGROUNDER_SOCKET": named], in: directory)
        #expect(help.status == 0, "\(help.output)")
    }
}
