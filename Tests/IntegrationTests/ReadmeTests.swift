import BackgrounderTestSupport
import Foundation
import Testing

/// README.md's commands, read from README.md at test time and run as written against a
/// private daemon: its own socket, state directory, gpsd (gpsfake) and PulseAudio, with the
/// built programs on `PATH` and `.build/debug` in the working directory pointing at them.
/// docs/TESTING.md lists the skips, substitutions and waits, which are these.
@Suite("README", .timeLimit(.minutes(10)), .tearsDown)
struct ReadmeTests {
    /// README.md's blocks.
    static func blocks() throws -> [ReadmeBlock] {
        ReadmeDocument.blocks(in: try String(contentsOfFile: Locations.repositoryRoot + "/README.md", encoding: .utf8))
    }

    /// The TestApp bundle that stands for `ID` where no sample fits: it declares
    /// remote-notification, fetch and processing, and NSMicrophoneUsageDescription.
    static let worker = "org.backgrounder.tests.worker"
    /// Its processing task, `TASK_ID`, submitted when it is opened.
    static let workerTask = "org.backgrounder.tests.worker.processing"

    static let skips: [ReadmeScript.Skip] = [
        .init(prefix: "scripts/demo.sh", reason: "installs system packages with apt-get, then runs the whole demo"),
        .init(prefix: "scripts/test.sh", reason: "is the command that runs this test"),
        .init(
            prefix: "swift build",
            reason: "SwiftPM holds .build's lock while swift test runs; the test uses what it built"),
        .init(
            prefix: "scripts/package.sh",
            reason: "a release build of every product; PackageTests packages the debug build"),
        .init(prefix: "sudo ", reason: "installs or removes a system package (PackageTests installs the .deb as root)"),
        .init(prefix: "systemctl ", reason: "needs a user service manager (SystemdServiceTests checks the units)"),
        .init(prefix: "journalctl ", reason: "needs systemd's journal"),
        .init(
            prefix: "backgroundplayer ",
            reason: "the installed command line, on PATH only once the .deb is (PackageTests runs it installed)"),
    ]

    @Test("every command in README's shell blocks runs as written against a private daemon and exits as documented")
    func commands() async throws {
        let directory = try TemporaryDirectory(prefix: "readme")
        atTeardown { directory.remove() }
        let commands = try Self.blocks().filter { $0.isShell && $0.marker != "own-package" }.flatMap(\.commands)
        // An empty or broken extraction must fail, not pass with nothing run.
        #expect(commands.count >= 50, "only \(commands.count) commands found in README.md")

        let fm = FileManager.default
        let work = directory.appending("work")
        let home = directory.appending("home")
        let state = directory.appending("state")
        let run = directory.appending("run")
        let web = directory.appending("web")
        for path in [work + "/.build", home + "/Music/album", web] {
            try fm.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        // 0711: the daemon refuses a socket directory others may list.
        try fm.createDirectory(atPath: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o711])
        try fm.createSymbolicLink(atPath: work + "/.build/debug", withDestinationPath: Locations.productsDirectory)
        try fm.createSymbolicLink(atPath: work + "/contrib", withDestinationPath: Locations.repositoryRoot + "/contrib")

        // ~/Music/album, and a feed and a podcast with one episode on a local web server.
        let tune = (0..<(44_100 * 8)).map { Float(0.3 * sin(2 * Double.pi * 440 * Double($0) / 44_100)) }
        try WAVFile.write(samples: tune, sampleRate: 44_100, channels: 1, to: home + "/Music/album/01 Tune.wav")
        try WAVFile.write(samples: tune, sampleRate: 44_100, channels: 1, to: web + "/episode.wav")
        let server = try await StaticWebServer(root: web, directory: directory)
        try Self.feed(server: server).write(toFile: web + "/feed.xml", atomically: true, encoding: .utf8)
        let episodeSize = try fm.attributesOfItem(atPath: web + "/episode.wav")[.size] as? Int ?? 0
        try Self.podcast(server: server, episodeSize: episodeSize).write(
            toFile: web + "/podcast.xml", atomically: true, encoding: .utf8)

        try TestAppBundles.make(
            "Worker", behavior: "processing", modes: ["remote-notification", "fetch", "processing"],
            microphoneUsage: true, taskIdentifiers: [Self.workerTask], into: work + "/Bundles")
        let pulse = try await PulseAudioServer(directory: directory)
        let gpsd = try await GPSDFake(log: Locations.gpsFixture("short-walk.nmea"), cycle: 0.05, directory: directory)
        atTeardown {
            await gpsd.stop()
            await pulse.stop()
            await server.stop()
        }

        let socket = run + "/backgrounderd.sock"
        let readme = ReadmeScript(
            skips: Self.skips,
            substitutions: [
                .init(text: "TASK_ID", replacement: Self.workerTask, word: true),
                .init(text: "ID", replacement: Self.worker, word: true),
                .init(text: "https://example.org/feed.xml", replacement: server.baseURL + "/feed.xml"),
                .init(text: "https://example.org/podcast.xml", replacement: server.baseURL + "/podcast.xml"),
                .init(text: "sleep 40", replacement: "sleep 7"),
                .init(text: "Tests/Fixtures/gps/", replacement: Locations.gpsFixture("")),
            ],
            waits: [
                // Opened once, the worker has submitted its processing task (TASK_ID).
                .init(prefix: ".build/debug/bgctl push ID", shell: "bash -c 'bgctl open \(Self.worker) && bgctl home'"),
                // Opened and sent home, the app submits its task request as it starts: on a busy
                // machine that comes after the next line is typed (CI once got there first).
                .init(
                    prefix: ".build/debug/bgctl simulate task org.backgrounder.samples.feedreader ",
                    shell: "bash -c 'bgctl tasks feedreader --json | grep -q samples.feedreader.refresh'"),
                .init(
                    prefix: ".build/debug/bgctl simulate task org.backgrounder.samples.compactor ",
                    shell: "bash -c 'bgctl tasks compactor --json | grep -q samples.compactor.compact'"),
                // The downloads run in the daemon, then the app files them: a person waits too.
                .init(
                    prefix: ".build/debug/Podcasts list",
                    shell: "bash -c 'ls \"$STATE\"/data/org.backgrounder.samples.podcasts/Episodes/*'"),
            ],
            daemonOptions: [
                "--socket", socket, "--state-dir", state, "--gpsd", gpsd.address, "--pulse-server", pulse.server,
                "--ignore-memory-pressure", "--log-level", "debug",
            ],
            bundleAll: Self.bundleAll())
        let steps = readme.steps(commands)
        let statusFile = directory.appending("status")
        let scriptFile = directory.appending("readme.sh")
        try readme.script(
            steps, workingDirectory: work, statusFile: statusFile, daemonLog: directory.appending("backgrounderd.log")
        )
        .write(toFile: scriptFile, atomically: true, encoding: .utf8)

        let process = try ChildProcess(
            "/bin/bash", [scriptFile],
            environment: [
                "HOME": home,
                "PATH": Locations.productsDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ""),
                "BACKGROUNDER_SOCKET": socket, "STATE": state,
                "XDG_DATA_HOME": home + "/.local/share", "XDG_DATA_DIRS": directory.appending("system-data"),
                "XDG_RUNTIME_DIR": run, "XDG_STATE_HOME": directory.appending("xdg-state"),
                "DBUS_SESSION_BUS_ADDRESS": "", "DBUS_SYSTEM_BUS_ADDRESS": "",
            ],
            logPath: directory.appending("readme.log"))
        let finished = await process.waitForExit(timeout: .seconds(600))
        if !finished { await process.stop(grace: .seconds(15)) }
        #expect(finished, "the README's commands did not finish in 10 minutes: \(process.output.suffix(3000))")

        let outcomes = ReadmeScript.outcomes((try? String(contentsOfFile: statusFile, encoding: .utf8)) ?? "")
        let output = String(process.output.suffix(20000))
        let ran = steps.filter { $0.runs != nil }
        #expect(ran.count >= 40, "only \(ran.count) commands ran")
        for step in ran {
            let line = step.command.line
            let outcome = outcomes[line]
            let expected = step.command.expectedStatus
            #expect(
                outcome?.waitedInVain != true,
                """
                README.md:\(line): what the test waits for before it never came; the apps' logs:
                \(Self.appLogs(state))
                the daemon's log of transfers and launches:
                \(Self.transferLines(directory.appending("backgrounderd.log")))
                """
            )
            #expect(
                outcome?.status == expected,
                "README.md:\(line): `\(step.command.code)` exited \(outcome?.status.map(String.init) ?? "never"), not \(expected)\n\(output)"
            )
            if expected == 0 {
                #expect(
                    outcome?.failures.isEmpty ?? true,
                    "README.md:\(line): a command in `\(step.command.code)` exited \(outcome?.failures ?? [])\n\(output)"
                )
            }
        }
        // Each skip still matches a command, so the list cannot outlive the README.
        for skip in Self.skips {
            #expect(
                commands.contains { $0.code.hasPrefix(skip.prefix) }, "no README command starts with \(skip.prefix)")
        }
        // Some of what the commands did, beyond their statuses.
        #expect(fm.fileExists(atPath: work + "/walk.gpx"), "HikeRecorder export wrote no walk.gpx")
        #expect(fm.fileExists(atPath: home + "/.config/systemd/user/backgrounderd.service"))
        let bundles = (try? fm.contentsOfDirectory(atPath: work + "/Bundles")) ?? []
        #expect(bundles.filter { $0.hasSuffix(".bundle") }.count == Self.samples().count + 1, "\(bundles)")
    }

    /// Every sample with an Info.plist beside its sources, as the bundle plugin finds them.
    static func samples() -> [String] {
        let root = Locations.repositoryRoot + "/Samples"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: "\(root)/\($0)/Info.plist") }.sorted()
    }

    /// What `swift package --allow-writing-to-package-directory bundle` does, without SwiftPM:
    /// `bgbundle` on each built sample (a policy plug-in is `libNAME.so`).
    static func bundleAll() -> String {
        let products = Locations.productsDirectory
        return Self.samples().map { name in
            let library = "\(products)/lib\(name).so"
            let executable = FileManager.default.fileExists(atPath: library) ? library : "\(products)/\(name)"
            return [
                "bgbundle", "--name", name, "--executable", executable,
                "--info-plist", "\(Locations.repositoryRoot)/Samples/\(name)/Info.plist", "--output", "Bundles",
            ].map(ReadmeScript.quoted).joined(separator: " ")
        }.joined(separator: " && ")
    }

    /// The end of every app's log in the state directory: what an app did when a wait ran out.
    static func appLogs(_ state: String) -> String {
        let logs = state + "/logs"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: logs))?.sorted() ?? []
        return names.map { name in
            let text = AppLogFile.text(atPath: logs + "/" + name) ?? ""
            return "== \(name)\n\(text.suffix(1500))"
        }.joined(separator: "\n")
    }

    /// The daemon's lines about transfers and launches: why a download was not handed over.
    static func transferLines(_ log: String) -> String {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n")
            .filter { $0.contains("transfer") || $0.contains("download") || $0.contains("launch") }
            .suffix(80).joined(separator: "\n")
    }

    static func feed(server: StaticWebServer) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>README feed</title><link>\(server.baseURL)/</link>
        <description>for the README test</description>
        <item><title>First</title><link>\(server.baseURL)/1</link><guid>1</guid></item>
        </channel></rss>
        """
    }

    static func podcast(server: StaticWebServer, episodeSize: Int) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0"><channel><title>README podcast</title><link>\(server.baseURL)/</link>
        <description>for the README test</description>
        <item><title>Episode 1</title><guid>episode-1</guid>
        <enclosure url="\(server.baseURL)/episode.wav" length="\(episodeSize)" type="audio/wav"/></item>
        </channel></rss>
        """
    }
}
