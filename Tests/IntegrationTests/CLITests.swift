import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// The command line a person meets (issue 16): each message is the documented one, each exit
/// status the one README's table gives, each `--json` output the shape docs/JSON.md gives.
/// Run against a private daemon, as a person would type the commands.
@Suite("The command line: messages, exit statuses, JSON shapes, help", .timeLimit(.minutes(5)), .tearsDown)
struct CLITests {
    static let hello = "org.backgrounder.samples.hello"

    static func bgctl(_ arguments: [String], socket: String? = nil) async throws -> CLIRun {
        try await CLIRun.run(Locations.product("bgctl"), arguments + (socket.map { ["--socket", $0] } ?? []))
    }

    /// The rows of docs/JSON.md's shapes table: the command and its key.
    static func documentedShapes() throws -> [(command: String, key: String)] {
        let text = try String(contentsOfFile: Locations.repositoryRoot + "/docs/JSON.md", encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> (String, String)? in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[0].hasPrefix("`bgctl "), cells[1].hasPrefix("`") else { return nil }
            return (String(cells[0].dropFirst(7).dropLast()), cells[1].trimmingCharacters(in: ["`"]))
        }
    }

    @Test("every command in docs/JSON.md prints {version: 1, KEY} with its documented type, absent values as null")
    func jsonShapes() async throws {
        let fixture = try await DaemonFixture(prefix: "cli-json")
        atTeardown { await fixture.tearDown() }
        let socket = fixture.daemon.socketPath
        let shapes = try Self.documentedShapes()
        #expect(shapes.count >= 19, "the table lists every command: \(shapes)")
        // An audio app's remote command needs PulseAudio: RemoteCommandStatusTests runs it.
        for (command, key) in shapes where !command.hasSuffix("COMMAND") {
            let words = command.split(separator: " ").map {
                $0 == "ID" ? Self.hello : $0 == "PATH" ? fixture.bundles + "/Hello.bundle" : String($0)
            }
            let asksDaemon = words.first != "validate"
            let run = try await Self.bgctl(words + ["--json"], socket: asksDaemon ? socket : nil)
            // Hello does not declare remote-notification, and no bundle is held for adoption:
            // the error's shape is checked.
            if let code = ["push": "invalidState", "adopt-bundle": "notFound"][words[0]] {
                #expect(run.status != 0 && run.standardOutput.isEmpty, "\(command): \(run)")
                let error = try #require(try CLIJSON.raw("error", from: run.standardError) as? [String: Any])
                #expect(error["code"] as? String == code, "\(command): \(error)")
                #expect(error["exitStatus"] as? Int == Int(run.status))
                continue
            }
            #expect(run.status == 0, "\(command): \(run.standardError)")
            #expect(run.standardError.isEmpty, "\(command): \(run.standardError)")
            try Self.decode(key, run.standardOutput, command: command)
        }
    }

    /// Decodes the value under `key` as the type docs/JSON.md names for it.
    static func decode(_ key: String, _ output: String, command: String) throws {
        switch key {
        case "status": _ = try CLIJSON.decode(DaemonStatus.self, key, from: output)
        case "apps" where command.hasPrefix("permissions"):
            _ = try CLIJSON.decode([PermissionList.Entry].self, key, from: output)
        case "apps":
            let apps = try CLIJSON.decode([AppInfo].self, key, from: output)
            #expect(apps.contains { $0.id.rawValue == hello })
            // Every field is there, null when it does not apply.
            let raw = try #require(try CLIJSON.raw(key, from: output) as? [[String: Any]])
            let fields: Set<String> = [
                "id", "name", "pid", "state", "modes", "assertions", "backgroundTimeRemaining", "cpuSeconds",
                "lastExit", "throttled", "forceQuit", "audioUnderruns", "audioOverruns", "waitsForConsent",
                "refillFrozenSeconds", "refillFreezes", "frozenForRefill",
            ]
            for app in raw { #expect(Set(app.keys) == fields, "\(app.keys.sorted())") }
            #expect(raw.contains { $0["throttled"] is NSNull })
        case "bundles": _ = try CLIJSON.decode([BundleEntry].self, key, from: output)
        case "reload": _ = try CLIJSON.decode(ReloadResult.self, key, from: output)
        case "result":
            let done = try CLIJSON.decode(Done.self, key, from: output)
            #expect(!done.detail.isEmpty)
            let raw = try #require(try CLIJSON.raw(key, from: output) as? [String: Any])
            #expect(
                Set(raw.keys) == ["detail", "state", "backgroundTimeRemaining", "handlerStatus", "handlerReason"],
                "\(command): \(raw)")
        case "notifications": _ = try CLIJSON.decode(NotificationsList.self, key, from: output)
        case "regions": _ = try CLIJSON.decode([RegionList.Entry].self, key, from: output)
        case "audio": _ = try CLIJSON.decode(AudioStatus.self, key, from: output)
        case "tasks": _ = try CLIJSON.decode([ScheduledWork].self, key, from: output)
        case "transfers": _ = try CLIJSON.decode([TransferInfo].self, key, from: output)
        case "import":
            let result = try CLIJSON.decode(ImportResult.self, key, from: output)
            #expect(result.files > 0 && result.destinations.count == 1, "\(command): \(result)")
        case "prompts": _ = try CLIJSON.decode([ConsentPrompt].self, key, from: output)
        case "shared":
            // share, shared and unshare run in the table's order: shared, listed, taken back.
            let list = try CLIJSON.decode(SharedFileList.self, key, from: output)
            #expect(list.files.count == (command.hasPrefix("unshare") ? 0 : 1), "\(command): \(list)")
        default: Issue.record("docs/JSON.md names a key the test does not know: \(key) (\(command))")
        }
    }

    @Test("a person's mistakes get the documented message and exit status, as text and as JSON on stderr")
    func mistakes() async throws {
        let fixture = try await DaemonFixture(prefix: "cli-errors")
        atTeardown { await fixture.tearDown() }
        let socket = fixture.daemon.socketPath
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["opne", Self.hello], 64, "bgctl: 'opne' is not a bgctl command; did you mean open?"),
            (["staus"], 64, "bgctl: 'staus' is not a bgctl command; did you mean status?"),
            (["frobnicate"], 64, "bgctl: 'frobnicate' is not a bgctl command; `bgctl --help` lists them"),
            (
                ["quit", "helo"], 1,
                "bgctl: no loaded bundle is 'helo'; did you mean org.backgrounder.samples.hello?"
            ),
            (["audio", "org.nope"], 1, "bgctl: no loaded bundle is 'org.nope'; `bgctl bundles` lists them"),
            (["simulate", "fech", "hello"], 64, "bgctl: 'fech' is not an event to simulate; did you mean fetch?"),
            // The daemon's refusal, without its code or any prefix of bgctl's.
            (
                ["push", "hello"], 1,
                "bgctl: org.backgrounder.samples.hello does not declare the remote-notification background mode"
            ),
            (
                ["authorize", "hello", "location", "ALWAYS"], 1,
                "bgctl: cannot grant: org.backgrounder.samples.hello's Info.plist has no NSLocationAlwaysAndWhenInUseUsageDescription, which \"always\" location needs"
            ),
        ]
        for (arguments, status, message) in cases {
            let run = try await Self.bgctl(arguments, socket: socket)
            #expect(run.status == status, "\(arguments): \(run)")
            #expect(run.standardError == message + "\n", "\(arguments)")
            #expect(run.standardOutput.isEmpty, "\(arguments): \(run.standardOutput)")

            let json = try await Self.bgctl(arguments + ["--json"], socket: socket)
            #expect(json.status == status, "\(arguments) --json")
            #expect(json.standardOutput.isEmpty)
            let error = try #require(try CLIJSON.raw("error", from: json.standardError) as? [String: Any])
            #expect(error["message"] as? String == String(message.dropFirst("bgctl: ".count)), "\(error)")
            #expect(error["exitStatus"] as? Int == Int(status))
            let code = try #require(error["code"] as? String)
            #expect(status == 64 ? code == "usage" : code != "usage", "\(arguments): \(code)")
        }

        // ArgumentParser's own checks keep their usage text, with the new wording.
        let memory = try await Self.bgctl(["simulate", "memory-pressure", "hello"], socket: socket)
        #expect(memory.status == 64)
        #expect(memory.standardError.contains("memory-pressure is the system's, not one app's: leave out 'hello'"))
        let level = try await Self.bgctl(["authorize", "hello", "location"], socket: socket)
        #expect(level.status == 64)
        #expect(level.standardError.contains("location needs a level: always, when-in-use, never"))
        let usageJSON = try await Self.bgctl(["authorize", "hello", "location", "--json"], socket: socket)
        let usage = try #require(try CLIJSON.raw("error", from: usageJSON.standardError) as? [String: Any])
        #expect(usage["code"] as? String == "usage" && usage["exitStatus"] as? Int == 64)

        // Nothing the mistakes named was touched.
        guard case .apps(let list) = try fixture.daemon.client().request(.ps).body else {
            Issue.record("no PS")
            return
        }
        #expect(list.apps.first { $0.id.rawValue == Self.hello }?.state == .notRunning)
    }

    @Test("a --socket that is a file, a directory, too long or silent: exit 3, and the message names it")
    func badSockets() async throws {
        let directory = try TemporaryDirectory(prefix: "cli-socket")
        defer { directory.remove() }
        let file = directory.appending("file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let long = directory.path + "/" + String(repeating: "s", count: 120) + ".sock"
        let missing = directory.appending("nothing.sock")
        let cases: [(String, String, String)] = [
            (
                file, "notASocket",
                "bgctl: \(file) is a regular file, not a socket; point --socket or BACKGROUNDER_SOCKET at backgrounderd's socket"
            ),
            (
                directory.path, "notASocket",
                "bgctl: \(directory.path) is a directory, not a socket; point --socket or BACKGROUNDER_SOCKET at backgrounderd's socket"
            ),
            (
                long, "socketPathTooLong",
                "bgctl: the socket path \(long) is \(long.utf8.count) bytes, longer than a Unix socket's 107; choose a shorter one"
            ),
            (
                missing, "notRunning",
                "bgctl: backgrounderd is not running (nothing listens on \(missing)); start it with `backgrounderd --socket \(missing)`, or point --socket or BACKGROUNDER_SOCKET at a running daemon"
            ),
        ]
        for (socket, code, message) in cases {
            let run = try await Self.bgctl(["ps"], socket: socket)
            #expect(run.status == 3, "\(socket): \(run)")
            #expect(run.standardError == message + "\n")
            let json = try await Self.bgctl(["ps", "--json"], socket: socket)
            let error = try #require(try CLIJSON.raw("error", from: json.standardError) as? [String: Any])
            #expect(error["code"] as? String == code && json.status == 3, "\(error)")
        }
    }

    @Test("ps fits 80 columns, shows - where no clock runs, and a relaunched app is no longer force-quit")
    func psTable() async throws {
        let fixture = try await DaemonFixture(prefix: "cli-ps", extraArguments: ["--suspend-grace", "0.5"])
        atTeardown { await fixture.tearDown() }
        let socket = fixture.daemon.socketPath
        func row() async throws -> [String] {
            let ps = try await Self.bgctl(["ps"], socket: socket)
            #expect(ps.status == 0)
            let lines = ps.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true).first == "APP")
            for line in lines { #expect(line.count <= 80, "\(line)") }
            return lines.first { $0.hasPrefix("hello ") }?.split(separator: " ").map(String.init) ?? []
        }
        func state() throws -> ApplicationState? {
            guard case .apps(let list) = try fixture.daemon.client().request(.ps).body else { return nil }
            return list.apps.first { $0.id.rawValue == Self.hello }?.state
        }

        #expect(try await Self.bgctl(["open", "hello"], socket: socket).status == 0)
        #expect(try await Self.bgctl(["home"], socket: socket).status == 0)
        #expect(try await waitUntil { try state() == .suspended })
        let suspended = try await row()
        #expect(suspended.count >= 5 && suspended[2] == "suspended" && suspended[3] == "-", "\(suspended)")

        #expect(try await Self.bgctl(["quit", "hello"], socket: socket).status == 0)
        #expect(try await waitUntil { try state() == .notRunning })
        let quit = try await row().joined(separator: " ")
        #expect(quit.contains("terminated: force quit"), "\(quit)")

        #expect(try await Self.bgctl(["open", "Hello"], socket: socket).status == 0)
        let relaunched = try await row()
        #expect(relaunched.last == "-", "a relaunched app's note describes the present: \(relaunched)")

        let wide = try await Self.bgctl(["ps", "--wide"], socket: socket)
        #expect(wide.standardOutput.hasPrefix("ID "))
        #expect(wide.standardOutput.contains(Self.hello) && wide.standardOutput.contains("ASSERTIONS"))
    }

    @Test("every subcommand's help wraps cleanly, shows an example and offers only the options it uses")
    func help() async throws {
        let root = try await Self.bgctl(["--help"])
        let names = root.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst()
            .prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
                return line.split(separator: " ").first.map(String.init)
            }
        #expect(names.count >= 20, "\(root.standardOutput)")
        for name in names where name != "help" {
            let help = try await Self.bgctl([name, "--help"])
            #expect(help.status == 0, "\(name)")
            let text = help.standardOutput
            #expect(text.contains("Example"), "\(name) shows no example")
            // A hand-wrapped line wrapped again leaves a backslash or a stub of a line.
            #expect(!text.contains("\\\n"), "\(name): \(text)")
            if let socket = text.range(of: "\n  --socket <PATH>") {
                // Up to the next option, with the wrapping undone.
                let rest = text[socket.upperBound...]
                let option = Self.unwrapped(String(rest[..<(rest.range(of: "\n  -")?.lowerBound ?? rest.endIndex)]))
                #expect(option.components(separatedBy: "default").count == 2, "\(name): 'default' once: \(option)")
                #expect(option.contains("/tmp/backgrounder-UID/backgrounderd.sock"))
            }
        }
        #expect(!(try await Self.bgctl(["validate", "--help"])).standardOutput.contains("--socket"))
        #expect(!(try await Self.bgctl(["logs", "--help"])).standardOutput.contains("--json"))

        let daemon = try await CLIRun.run(Locations.product("backgrounderd"), ["--help"])
        #expect(daemon.status == 0)
        for fallback in [
            "else ~/.local/state/backgrounder", "/tmp/backgrounder-UID/backgrounderd.sock",
            "Default: $XDG_DATA_HOME/backgrounder/bundles", "Examples:",
        ] {
            #expect(Self.unwrapped(daemon.standardOutput).contains(fallback), "backgrounderd --help lacks \(fallback)")
        }
    }

    /// Help text with its line wrapping undone: runs of spaces and newlines become one space.
    static func unwrapped(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    @Test("backgrounderd refuses a negative number, a too-long socket and an unusable state directory by name")
    func daemonMistakes() async throws {
        let directory = try TemporaryDirectory(prefix: "cli-daemon")
        defer { directory.remove() }
        let daemon = Locations.product("backgrounderd")
        let negative = try await CLIRun.run(daemon, ["--task-budget", "-5"])
        #expect(negative.status == 64)
        #expect(negative.standardError.contains("--task-budget must be a number of seconds, 0 or more, not -5.0"))

        let long = directory.path + "/" + String(repeating: "d", count: 100) + ".sock"
        let tooLong = try await CLIRun.run(
            daemon, ["--socket", long, "--state-dir", directory.appending("state"), "--bundles", directory.path],
            environment: ["DBUS_SESSION_BUS_ADDRESS": "", "DBUS_SYSTEM_BUS_ADDRESS": ""])
        #expect(tooLong.status == 1)
        #expect(
            tooLong.standardError.contains("\(long): --socket is \(long.utf8.count) bytes, too long"),
            "\(tooLong.standardError)")

        let state = try await CLIRun.run(
            daemon,
            [
                "--socket", directory.appending("d.sock"), "--state-dir", "/proc/nope", "--bundles", directory.path,
            ],
            environment: ["DBUS_SESSION_BUS_ADDRESS": "", "DBUS_SYSTEM_BUS_ADDRESS": ""])
        #expect(state.status == 1)
        #expect(
            state.standardError.contains(
                "/proc/nope: cannot create the --state-dir directory: No such file or directory"),
            "\(state.standardError)")
    }
}
