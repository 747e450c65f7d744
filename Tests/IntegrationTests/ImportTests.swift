import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `bgctl import`: a person's files given to an app through the daemon, against a hostile app
/// that planted links in its data directory where the person's copies would go. Judged by the
/// outcome: the files the links point at are untouched, the copies are the app's, and links
/// and FIFOs inside what the person gave are left out.
@Suite("A person's files given to an app", .timeLimit(.minutes(5)), .tearsDown)
struct ImportTests {
    @Test(
        "bgctl import copies as the app's user, follows no link the app planted or the sources hold, and skips FIFOs",
        .enabled(if: geteuid() == 0, "gives a link to another uid, as an app's would be"))
    func importDoesNotFollowPlantedLinks() async throws {
        let directory = try TemporaryDirectory(prefix: "import")
        atTeardown { directory.remove() }
        // What a root `cp -r` would have overwritten through the app's links.
        let victim = directory.appending("victim")
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: false)
        try "precious".write(toFile: victim + "/target.txt", atomically: false, encoding: .utf8)

        var id = ""
        let running = try await LifecycleTests.Running(prefix: "import-daemon") { bundles in
            id = try PythonAppBundles.make(
                "LinkPlanter",
                script: """
                    \(PythonAppBundles.checkIn)
                    os.symlink(\(String(reflecting: victim)), os.path.join(DATA, "album"))
                    os.symlink(\(String(reflecting: victim + "/target.txt")), os.path.join(DATA, "song.wav"))
                    report("planted", sorted(os.listdir(DATA)))
                    while True:
                        time.sleep(1)
                    """,
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { TrustBoundaryTests.report(running, id).contains("planted") }, "\(running.appLog(id))")

        // The person's files: an album (whose name the app took), a song (likewise), and a
        // directory holding a link out and a FIFO.
        let sources = directory.appending("sources")
        for path in ["album", "fresh/sub"] {
            try FileManager.default.createDirectory(atPath: sources + "/" + path, withIntermediateDirectories: true)
        }
        let tune = Data((0..<3000).map { UInt8($0 % 251) })
        try tune.write(to: URL(fileURLWithPath: sources + "/album/a.wav"))
        try tune.write(to: URL(fileURLWithPath: sources + "/song.wav"))
        try tune.write(to: URL(fileURLWithPath: sources + "/fresh/c.wav"))
        try Data("deeper".utf8).write(to: URL(fileURLWithPath: sources + "/fresh/sub/d.wav"))
        try FileManager.default.createSymbolicLink(
            atPath: sources + "/fresh/escape", withDestinationPath: "/etc/shadow")
        #expect(mkfifo(sources + "/fresh/pipe", 0o644) == 0)

        let run = try await CLIRun.run(
            Locations.product("bgctl"),
            [
                "import", "linkplanter", sources + "/album", sources + "/song.wav", sources + "/fresh", "--json",
                "--socket", running.daemon.socketPath,
            ])
        #expect(run.status == 0, "\(run)")
        let result = try CLIJSON.decode(ImportResult.self, "import", from: run.standardOutput)
        let data = running.dataDirectory(id)
        #expect(result.directory == data)
        #expect(result.destinations == [data + "/album", data + "/song.wav", data + "/fresh"])
        #expect(result.files == 2, "\(result)")
        #expect(result.bytes == tune.count + 6)
        let reasons = Dictionary(result.skipped.map { ($0.path, $0.reason) }) { first, _ in first }
        #expect(reasons[data + "/album"]?.contains("not followed") == true, "\(result.skipped)")
        #expect(reasons[data + "/song.wav"]?.contains("already in the app's directory") == true, "\(result.skipped)")
        #expect(reasons[sources + "/fresh/escape"] == "a symbolic link; not followed", "\(result.skipped)")
        #expect(reasons[sources + "/fresh/pipe"] == "not a regular file or directory", "\(result.skipped)")

        // Outcome: nothing reached through the app's links, the copies are the app's.
        #expect(try String(contentsOfFile: victim + "/target.txt", encoding: .utf8) == "precious")
        #expect(try FileManager.default.contentsOfDirectory(atPath: victim) == ["target.txt"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: data + "/album") == victim)
        #expect(FileManager.default.contents(atPath: data + "/fresh/c.wav") == tune)
        #expect(FileManager.default.contents(atPath: data + "/fresh/sub/d.wav") == Data("deeper".utf8))
        var link = stat()
        #expect(lstat(data + "/fresh/escape", &link) != 0, "a link inside the sources was copied")
        #expect(lstat(data + "/fresh/pipe", &link) != 0, "a FIFO was copied")
        var owner = stat()
        var copy = stat()
        #expect(stat(data, &owner) == 0 && stat(data + "/fresh/sub/d.wav", &copy) == 0)
        #expect(copy.st_uid == owner.st_uid && copy.st_gid == owner.st_gid, "the copy is not the app's")
        #expect(copy.st_mode & 0o777 == 0o600)

        // A link given as a source is followed when the person made it (root's, here), not when
        // another uid did: an app's, in a directory of its own the person names.
        try FileManager.default.createSymbolicLink(
            atPath: sources + "/mine", withDestinationPath: sources + "/song.wav")
        let linked = try await CLIRun.run(
            Locations.product("bgctl"),
            ["import", "linkplanter", sources + "/mine", "--json", "--socket", running.daemon.socketPath])
        #expect(linked.status == 0, "\(linked)")
        #expect(FileManager.default.contents(atPath: data + "/mine") == tune)
        try FileManager.default.createSymbolicLink(
            atPath: sources + "/theirs", withDestinationPath: victim + "/target.txt")
        #expect(lchown(sources + "/theirs", 4242, 4242) == 0)
        let refused = try await CLIRun.run(
            Locations.product("bgctl"),
            ["import", "linkplanter", sources + "/theirs", "--socket", running.daemon.socketPath])
        #expect(refused.status == 1, "\(refused)")
        #expect(
            refused.standardError.contains(
                "theirs is a symbolic link of uid 4242, neither root's nor the daemon's; not followed"), "\(refused)")
        var theirs = stat()
        #expect(lstat(data + "/theirs", &theirs) != 0, "a link of another uid was followed")

        // A source that does not exist is named, and nothing of the request is copied.
        let missing = try await CLIRun.run(
            Locations.product("bgctl"),
            [
                "import", "linkplanter", sources + "/fresh/c.wav", sources + "/nope", "--socket",
                running.daemon.socketPath,
            ])
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.standardError.contains("\(sources)/nope: cannot open: No such file or directory"), "\(missing)")
        #expect(!FileManager.default.fileExists(atPath: data + "/c.wav"), "a file was copied before the request failed")
    }

    @Test(
        "under a person's daemon, a link an app made in its own directory is not followed when the person names it, though it has the person's uid",
        .enabled(if: geteuid() == 0, "runs the daemon under a uid of its own, as a person's daemon"))
    func personsDaemonFollowsNoAppLink() async throws {
        let uid: UInt32 = 54_327
        let directory = try TemporaryDirectory(prefix: "import-person")
        atTeardown { directory.remove() }
        // The person's file, out of the app's reach (Landlock), readable by the person's uid.
        let secret = directory.appending("secret.txt")
        try "the person's secret".write(toFile: secret, atomically: false, encoding: .utf8)
        chmod(secret, 0o600)
        let bundles = directory.appending("bundles")
        let id = try PythonAppBundles.make(
            "Exporter",
            script: """
                \(PythonAppBundles.checkIn)
                try:
                    open(\(String(reflecting: secret))).read()
                    report("read the secret", True)
                except OSError as error:
                    report("read the secret", "refused: %s" % error)
                os.makedirs(os.path.join(DATA, "export"))
                os.symlink(\(String(reflecting: secret)), os.path.join(DATA, "export", "notes.txt"))
                report("planted", True)
                while True:
                    time.sleep(3600)
                """,
            into: bundles)
        chown(secret, uid, uid)
        let daemon = try await PersonsDaemon.start(
            as: uid, directory: directory, bundles: bundles)
        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        let data = daemon.stateDirectory + "/data/" + id
        func report() -> String { (try? String(contentsOfFile: data + "/report.jsonl", encoding: .utf8)) ?? "" }
        #expect(await waitUntil { report().contains("planted") }, "\(report())")
        #expect(report().contains("\"read the secret\", \"value\": \"refused"), "its sandbox keeps it out: \(report())")

        // The person names the app's "export" as a source: the link is not followed.
        let run = try await CLIRun.run(
            Locations.product("bgctl"),
            ["import", id, data + "/export/notes.txt", "--socket", daemon.socketPath])
        #expect(run.status == 1, "\(run)")
        #expect(
            run.standardError.contains("notes.txt is a symbolic link in an app's directory"), "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: data + "/notes.txt"), "the secret was copied for the app")
    }
}
