import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Where backgrounderd looks without `--bundles`, and what bgctl offers on TAB where an app's
/// identifier goes: real daemon, real bgctl, directories made for each test.
@Suite("Default bundle directories and bundle-identifier completion", .timeLimit(.minutes(5)), .tearsDown)
struct DefaultBundleDirectoriesTests {
    /// `XDG_DATA_HOME` and three `XDG_DATA_DIRS` entries under one temporary directory, the
    /// second entry never created.
    struct DataDirectories {
        let directory: TemporaryDirectory
        var home: String { directory.appending("home") }
        var system: [String] { ["first", "missing", "last"].map { directory.appending("system-\($0)") } }
        var environment: [String: String] {
            ["XDG_DATA_HOME": home, "XDG_DATA_DIRS": system.joined(separator: ":")]
        }
        /// `backgrounder/bundles` below a data directory.
        func bundles(_ base: String) -> String { base + "/backgrounder/bundles" }
    }

    /// org.backgrounder.tests.shared in the user's data directory and again in the first
    /// system one (shadowed there, as a later PATH entry is), beside one bundle of its own; the
    /// last system directory holds one more.
    static func populated(_ prefix: String) throws -> DataDirectories {
        let data = DataDirectories(directory: try TemporaryDirectory(prefix: prefix))
        try TestAppBundles.make("Shared", into: data.bundles(data.home))
        try TestAppBundles.make("Shared", into: data.bundles(data.system[0]))
        try TestAppBundles.make("Packaged", into: data.bundles(data.system[0]))
        try TestAppBundles.make("Late", into: data.bundles(data.system[2]))
        // A policy plug-in, which no app command takes.
        try SampleBundles.assemble("LowPowerPolicy", into: data.bundles(data.system[2]))
        return data
    }

    @Test(
        "without --bundles the daemon searches XDG_DATA_HOME, then each XDG_DATA_DIRS entry; missing ones are no news")
    func daemonSearchesTheXDGPath() async throws {
        let data = try Self.populated("xdg")
        atTeardown { data.directory.remove() }
        let daemon = try await DaemonProcess(directory: data.directory, environment: data.environment)
        atTeardown { await daemon.stop() }

        let reply = try daemon.client().request(.bundles)
        guard case .bundles(let list) = reply.body else {
            Issue.record("expected BUNDLES, got \(reply.className)")
            return
        }
        let loaded = Dictionary(
            list.bundles.compactMap { entry in entry.id.map { ($0, entry.path) } }, uniquingKeysWith: { a, _ in a })
        #expect(
            loaded == [
                "org.backgrounder.tests.shared": data.bundles(data.home) + "/Shared.bundle",
                "org.backgrounder.tests.packaged": data.bundles(data.system[0]) + "/Packaged.bundle",
                "org.backgrounder.tests.late": data.bundles(data.system[2]) + "/Late.bundle",
                "org.backgrounder.samples.lowpower": data.bundles(data.system[2]) + "/LowPowerPolicy.bundle",
            ])
        // The copy in the later directory is the one set aside, naming the one that won.
        let refused = list.bundles.filter { $0.status == .refused }
        #expect(refused.map(\.path) == [data.bundles(data.system[0]) + "/Shared.bundle"], "\(refused)")
        #expect(refused.first?.reason?.contains(data.bundles(data.home)) == true)
        #expect(!daemon.log.contains("missing"), "a missing default directory is not reported: \(daemon.log)")
        #expect(!daemon.log.contains("cannot list"), "\(daemon.log)")
    }

    @Test("a missing directory given with --bundles is still reported")
    func explicitMissingDirectoryIsReported() async throws {
        let directory = try TemporaryDirectory(prefix: "xdgx")
        atTeardown { directory.remove() }
        let missing = directory.appending("not-there")
        let daemon = try await DaemonProcess(directory: directory, bundleDirectories: [missing])
        atTeardown { await daemon.stop() }
        #expect(daemon.log.contains("\(missing): --bundles: cannot list the directory"), "\(daemon.log)")
    }

    @Test("backgrounderd --help names the default bundle directories")
    func helpNamesTheDefault() async throws {
        let directory = try TemporaryDirectory(prefix: "xdgh")
        atTeardown { directory.remove() }
        let help = try await Tool.run(Locations.product("backgrounderd"), ["--help"])
        #expect(help.status == 0)
        let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("$XDG_DATA_HOME/backgrounder/bundles"), "\(help.output)")
        #expect(words.contains("$XDG_DATA_DIRS"), "\(help.output)")
    }

    /// What `bgctl` prints when a shell asks it to complete the identifier (the subcommand's
    /// first argument) on the line `bgctl SUBCOMMAND WORDS... PREFIX`.
    static func complete(
        _ subcommand: String, _ words: [String], prefix: String = "", environment: [String: String],
        in directory: TemporaryDirectory
    ) async throws -> (status: Int32?, output: String) {
        let line = ["bgctl", subcommand] + words + [prefix]
        let process = try ChildProcess(
            Locations.product("bgctl"),
            // As the generated scripts call it: the argument, the index of the word being
            // completed, the cursor's place in it, then the words.
            ["---completion", subcommand, "--", "positional@0", "\(line.count - 1)", "\(prefix.count)"] + line,
            environment: environment,
            logPath: directory.appending("complete-\(UUID().uuidString.prefix(6)).log"))
        #expect(await process.waitForExit(timeout: .seconds(30)))
        return (process.terminationStatus, process.output)
    }

    @Test("app identifiers complete from the daemon's list, with --socket read from the command line")
    func completionAsksTheDaemon() async throws {
        let fixture = try await DaemonFixture(prefix: "cmpl")
        atTeardown { await fixture.tearDown() }
        // A policy plug-in the daemon loads too, which no app command takes.
        try SampleBundles.assemble("LowPowerPolicy", into: fixture.bundles)
        _ = try fixture.daemon.client().request(.reload)
        let reply = try fixture.daemon.client().request(.bundles)
        guard case .bundles(let list) = reply.body else {
            Issue.record("expected BUNDLES, got \(reply.className)")
            return
        }
        #expect(list.bundles.contains { $0.id == "org.backgrounder.samples.lowpower" }, "\(list)")
        // No bundle in the default directories: whatever completes came from the daemon.
        let empty = [
            "XDG_DATA_HOME": fixture.directory.appending("none"), "XDG_DATA_DIRS": fixture.directory.appending("none"),
        ]
        for subcommand in ["open", "quit", "push", "logs"] {
            let result = try await Self.complete(
                subcommand, ["--socket", fixture.daemon.socketPath], prefix: "org.backgrounder.s",
                environment: empty, in: fixture.directory)
            #expect(result.status == 0)
            #expect(result.output == "org.backgrounder.samples.hello\n", "\(subcommand): \(result.output)")
        }
        let none = try await Self.complete(
            "open", ["--socket", fixture.daemon.socketPath], prefix: "com.", environment: empty, in: fixture.directory)
        #expect(none.output.isEmpty, "\(none.output)")
    }

    @Test("with no daemon, app identifiers complete from the default directories, without a word on errors")
    func completionFallsBackToTheDirectories() async throws {
        let data = try Self.populated("cmpd")
        defer { data.directory.remove() }
        var environment = data.environment
        environment["BACKGROUNDER_SOCKET"] = data.directory.appending("nobody.sock")
        let result = try await Self.complete("authorize", [], environment: environment, in: data.directory)
        #expect(result.status == 0)
        #expect(
            result.output
                == "org.backgrounder.tests.late\norg.backgrounder.tests.packaged\norg.backgrounder.tests.shared\n",
            "\(result.output)")
    }
}
