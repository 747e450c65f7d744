import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// `bgctl` as a user and a script run it: real process, real daemon.
@Suite("bgctl", .timeLimit(.minutes(5)), .tearsDown)
struct BGCtlTests {
    static func bgctl(_ arguments: [String], in directory: TemporaryDirectory, environment: [String: String] = [:])
        async throws -> (status: Int32?, output: String)
    {
        let process = try ChildProcess(
            Locations.product("bgctl"),
            arguments,
            environment: environment,
            logPath: directory.appending("bgctl-\(UUID().uuidString.prefix(6)).log")
        )
        #expect(await process.waitForExit(timeout: .seconds(30)))
        return (process.terminationStatus, process.output)
    }

    @Test("--socket and --json work before the subcommand as after it, also for nested subcommands")
    func globalOptionsFirst() async throws {
        let fixture = try await DaemonFixture(prefix: "ctl-global")
        atTeardown { await fixture.tearDown() }
        let socket = fixture.daemon.socketPath
        let before = try await Self.bgctl(["--socket", socket, "status"], in: fixture.directory)
        #expect(before.status == 0, "\(before.output)")
        #expect(before.output.contains("backgrounderd 0.1.0"))
        let json = try await Self.bgctl(["--json", "--socket=\(socket)", "bundles"], in: fixture.directory)
        #expect(json.status == 0)
        #expect(json.output.contains("\"org.backgrounder.samples.hello\""))
        let nested = try await Self.bgctl(
            ["--socket", socket, "simulate", "memory-pressure"], in: fixture.directory)
        #expect(nested.status == 0, "\(nested.output)")
        let wrong = try await Self.bgctl(
            ["--socket", fixture.directory.appending("nothing.sock"), "ps"], in: fixture.directory)
        #expect(wrong.status == 3, "the socket given first is the one used: \(wrong.output)")
    }

    @Test("while the screen is locked, open is refused with unlock first; unlock when not locked says so")
    func lockSemantics() async throws {
        let fixture = try await DaemonFixture(prefix: "ctl-lock")
        atTeardown { await fixture.tearDown() }
        let socket = fixture.daemon.socketPath
        let id = "org.backgrounder.samples.hello"
        let notLocked = try await Self.bgctl(["unlock", "--socket", socket], in: fixture.directory)
        #expect(notLocked.status == 0)
        #expect(notLocked.output.contains("the screen is not locked; nothing to unlock"), "\(notLocked.output)")

        #expect(try await Self.bgctl(["lock", "--socket", socket], in: fixture.directory).status == 0)
        let refused = try await Self.bgctl(["open", id, "--socket", socket], in: fixture.directory)
        #expect(refused.status != 0)
        #expect(refused.output.contains("the screen is locked: unlock first"), "\(refused.output)")
        guard case .apps(let list) = try fixture.daemon.client().request(.ps).body else {
            Issue.record("no PS")
            return
        }
        #expect(list.apps.first { $0.id.rawValue == id }?.state == .notRunning, "nothing launched behind the lock")

        #expect(try await Self.bgctl(["unlock", "--socket", socket], in: fixture.directory).status == 0)
        let opened = try await Self.bgctl(["open", id, "--socket", socket], in: fixture.directory)
        #expect(opened.status == 0, "\(opened.output)")
    }

    @Test("open takes a unique suffix or the bundle's name, and a near miss gets did you mean")
    func bundleNames() async throws {
        let fixture = try await DaemonFixture(prefix: "ctl-names")
        atTeardown { await fixture.tearDown() }
        let socket = fixture.daemon.socketPath
        let id = "org.backgrounder.samples.hello"
        for typed in ["hello", "Hello"] {
            let opened = try await Self.bgctl(["open", typed, "--socket", socket], in: fixture.directory)
            #expect(opened.status == 0, "\(typed): \(opened.output)")
            #expect(opened.output.contains(id), "\(typed): \(opened.output)")
        }
        let typo = try await Self.bgctl(["quit", "helo", "--socket", socket], in: fixture.directory)
        #expect(typo.status == 1)
        #expect(typo.output.contains("no loaded bundle is 'helo'; did you mean \(id)?"), "\(typo.output)")
        guard case .apps(let list) = try fixture.daemon.client().request(.ps).body else {
            Issue.record("no PS")
            return
        }
        #expect(list.apps.first { $0.id.rawValue == id }?.state != .notRunning, "the typo quit nothing")
    }

    @Test("status and bundles, as text and as JSON, through --socket and BACKGROUNDER_SOCKET")
    func statusAndBundles() async throws {
        let fixture = try await DaemonFixture(prefix: "ctl")
        atTeardown { await fixture.tearDown() }
        let socket = fixture.daemon.socketPath

        let text = try await Self.bgctl(["status", "--socket", socket], in: fixture.directory)
        #expect(text.status == 0)
        #expect(text.output.contains("backgrounderd 0.1.0"))
        #expect(text.output.contains("1 loaded, 0 refused"))
        #expect(text.output.contains("gpsd"))
        #expect(text.output.contains("PulseAudio"))

        let json = try await Self.bgctl(
            ["status", "--json"], in: fixture.directory, environment: ["BACKGROUNDER_SOCKET": socket])
        #expect(json.status == 0)
        let status = try CLIJSON.decode(DaemonStatus.self, "status", from: json.output)
        #expect(status.socket == socket)
        #expect(status.pid == fixture.daemon.pid)
        // Every capability the daemon runs describes itself (`CAPABILITIES`), in the order it
        // runs them, inside the status object; the text says the same under "capabilities".
        struct WithCapabilities: Decodable { var capabilities: [CapabilityStatus]? }
        // The core answers within 2 s unless it is busy (a loaded machine), when the rows say
        // it did not answer: asked again until both the text and the JSON have its answer.
        var capabilities: [CapabilityStatus]?
        var text2 = text
        for _ in 0..<10 {
            text2 = try await Self.bgctl(["status", "--socket", socket], in: fixture.directory)
            let json2 = try await Self.bgctl(["status", "--json", "--socket", socket], in: fixture.directory)
            capabilities = try CLIJSON.decode(WithCapabilities.self, "status", from: json2.output).capabilities
            if capabilities != nil, !text2.output.contains("\ncapabilities\n- ") { break }
        }
        let rows = try #require(capabilities, "the core never answered CAPABILITIES")
        #expect(
            rows.map(\.name) == [
                "location", "audio", "scheduling", "transfers", "resources", "notifications", "sharing",
            ])
        #expect(rows.allSatisfy { !$0.summary.isEmpty })
        let parts = text2.output.components(separatedBy: "\ncapabilities\n")
        #expect(parts.count == 2, "no capabilities section in:\n\(text2.output)")
        let section = parts.last ?? ""
        for capability in rows {
            #expect(
                section.split(separator: "\n").contains { $0.hasPrefix(capability.name + " ") },
                "no \(capability.name) row in:\n\(text2.output)")
        }

        let bundles = try await Self.bgctl(["bundles", "--socket", socket], in: fixture.directory)
        #expect(bundles.output.contains("org.backgrounder.samples.hello"))
        #expect(bundles.output.contains("loaded"))
        let bundlesJSON = try await Self.bgctl(["bundles", "--socket", socket, "--json"], in: fixture.directory)
        let entries = try CLIJSON.decode([BundleEntry].self, "bundles", from: bundlesJSON.output)
        #expect(entries.map(\.id) == ["org.backgrounder.samples.hello"])
        #expect(entries.first?.modes == ["fetch"])

        let reload = try await Self.bgctl(["reload", "--socket", socket], in: fixture.directory)
        #expect(reload.output.contains("1 loaded, 0 refused"))
    }

    @Test("without a daemon, bgctl says it is not running and how to start it")
    func noDaemon() async throws {
        let directory = try TemporaryDirectory(prefix: "nod")
        defer { directory.remove() }
        let result = try await Self.bgctl(["status", "--socket", directory.appending("none.sock")], in: directory)
        #expect(result.status == 3)
        #expect(result.output.contains("not running"))
        #expect(result.output.contains("backgrounderd --socket"))
    }

    @Test("validate needs no daemon: ok ID, refused PATH: KEY: reason, exit 1 on any refusal")
    func validate() async throws {
        let directory = try TemporaryDirectory(prefix: "val")
        defer { directory.remove() }
        let good = try SampleBundles.assemble("Hello", into: directory.path)
        let bad = directory.appending("Bad.bundle")
        try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bad)
        try Data("not a plist".utf8).write(to: URL(fileURLWithPath: bad + "/Info.plist"))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: bad + "/Info.plist")

        // A directory the daemon would skip for its name is refused, with the fix.
        let misnamed = directory.appending("Misnamed")
        try FileManager.default.copyItem(atPath: good.path, toPath: misnamed)
        let renamed = try await Self.bgctl(["validate", misnamed], in: directory)
        #expect(renamed.status == 1)
        #expect(renamed.output.contains("refused \(misnamed): path: not a Name.bundle directory"), "\(renamed.output)")

        let okOnly = try await Self.bgctl(["validate", good.path], in: directory)
        #expect(okOnly.status == 0)
        #expect(okOnly.output == "ok org.backgrounder.samples.hello\n")

        let mixed = try await Self.bgctl(["validate", good.path, bad], in: directory)
        #expect(mixed.status == 1)
        #expect(mixed.output.contains("ok org.backgrounder.samples.hello"))
        #expect(mixed.output.contains("refused \(bad)/Info.plist: Info.plist: not a valid property list"))

        let json = try await Self.bgctl(["validate", "--json", good.path, bad], in: directory)
        let entries = try CLIJSON.decode([BundleEntry].self, "bundles", from: json.output)
        #expect(entries.map(\.status) == [.loaded, .refused])
    }
}
