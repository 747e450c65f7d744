import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Files a person shares with an app where they lie (`bgctl share`): a hostile app asks the
/// daemon for what it was given and for everything beside it, under a root daemon and a
/// person's. Judged by what the app got to read: the shared files, and not a byte of the
/// person's secret next to them.
@Suite("A person's files shared with an app", .timeLimit(.minutes(5)), .tearsDown)
struct SharedFilesTests {
    static let secret = "the person's secret"
    static let track = "the track's bytes"

    /// The person's files: `home/album` (shared) with a track, a subfolder and a link out to
    /// the secret beside it, which is not shared.
    static func personsFiles(in directory: TemporaryDirectory, owner: uid_t) throws -> String {
        let home = directory.appending("home")
        try FileManager.default.createDirectory(atPath: home + "/album/inner", withIntermediateDirectories: true)
        try secret.write(toFile: home + "/secret.txt", atomically: false, encoding: .utf8)
        try track.write(toFile: home + "/album/track.txt", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: home + "/album/escape", withDestinationPath: "../secret.txt")
        for path in [home, home + "/album", home + "/album/inner", home + "/secret.txt", home + "/album/track.txt"] {
            chown(path, owner, owner)
        }
        lchown(home + "/album/escape", owner, owner)
        // Only the person may enter: under root, the app's own uid could not even reach it.
        chmod(home, 0o700)
        chmod(home + "/secret.txt", 0o600)
        return home
    }

    /// The hostile app: reads what it can through the descriptor socket, straight from the
    /// file system, and by sharing the secret with itself; then again once the test says the
    /// album was taken back.
    static func hostileApp(home: String, into bundles: String) throws -> String {
        try PythonAppBundles.make(
            "Sharer",
            script: """
                \(PythonAppBundles.checkIn)
                HOME = \(String(reflecting: home))
                DESCRIPTORS = (SOCKET[:-5] if SOCKET.endswith(".sock") else SOCKET) + "-audio.sock"

                def open_shared(path):
                    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                        s.connect(DESCRIPTORS)
                        s.sendall(("OPEN " + path + "\\n").encode())
                        message, fds, _, _ = socket.recv_fds(s, 8192, 1)
                    answer = message.decode().strip()
                    if not fds:
                        return answer
                    try:
                        if answer == "OK directory":
                            return answer + " " + ",".join(sorted(os.listdir(fds[0])))
                        return answer + " " + os.read(fds[0], 200).decode(errors="replace")
                    finally:
                        os.close(fds[0])

                def attempt(key, path):
                    try:
                        report(key, open_shared(path))
                    except OSError as error:
                        report(key, "oserror %s" % error)

                try:
                    report("direct", open(HOME + "/secret.txt").read())
                except OSError:
                    report("direct", "refused")
                attempt("track", HOME + "/album/track.txt")
                attempt("album", HOME + "/album")
                attempt("secret", HOME + "/secret.txt")
                attempt("dotdot", HOME + "/album/../secret.txt")
                attempt("link", HOME + "/album/escape")
                attempt("relative", "album/track.txt")
                attempt("long", HOME + "/album/" + "x" * 6000)
                share = {"class": "SHARE", "bundle": BUNDLE, "paths": [HOME + "/secret.txt"]}
                report("share-own", request(share).get("class"))
                report("share-public", public(share).get("class"))
                attempt("after-share", HOME + "/secret.txt")
                report("ready", True)
                while not os.path.exists(os.path.join(DATA, "unshared")):
                    time.sleep(0.05)
                attempt("after-unshare", HOME + "/album/track.txt")
                report("done", True)
                while True:
                    time.sleep(3600)
                """,
            into: bundles)
    }

    /// What the app reported, by key (the last value of each).
    static func report(_ data: String) -> [String: String] {
        let text = (try? String(contentsOfFile: data + "/report.jsonl", encoding: .utf8)) ?? ""
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let key = object["key"] as? String
            else { continue }
            values[key] = object["value"].map { "\($0)" }
        }
        return values
    }

    /// Shares the album with `bgctl share`, runs the hostile app, takes the album back with
    /// `bgctl unshare`, and judges what the app read.
    static func exercise(_ daemon: DaemonProcess, id: String, home: String) async throws {
        let bgctl = Locations.product("bgctl")
        let share = try await CLIRun.run(bgctl, ["share", id, home + "/album", "--socket", daemon.socketPath])
        #expect(share.status == 0, "\(share)")
        #expect(share.standardOutput == home + "/album/\n", "\(share)")

        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        let data = daemon.stateDirectory + "/data/" + id
        #expect(await waitUntil { report(data)["ready"] != nil }, "\(report(data))")
        let seen = report(data)
        #expect(seen["direct"] == "refused", "its sandbox keeps the person's files out: \(seen)")
        #expect(seen["track"] == "OK file \(track)", "\(seen)")
        #expect(seen["album"] == "OK directory escape,inner,track.txt", "\(seen)")
        for key in ["secret", "dotdot", "link", "relative", "after-share"] {
            #expect(seen[key]?.hasPrefix("ERR ") == true, "\(key): \(seen)")
        }
        #expect(seen["link"]?.contains("symbolic link inside a shared folder") == true, "\(seen)")
        // Refused on its own connection; on the public socket refused, or out of its reach
        // (under root, the socket's directory is the person's). The listing below is the proof.
        #expect(seen["share-own"] == "ERROR", "\(seen)")
        #expect(["ERROR", "OSERROR"].contains(seen["share-public"]), "\(seen)")
        #expect(seen.values.allSatisfy { !$0.contains(secret) }, "the app read the secret: \(seen)")

        // What is shared, as a script reads it: the album alone.
        let listed = try await CLIRun.run(bgctl, ["shared", id, "--json", "--socket", daemon.socketPath])
        struct Listing: Decodable { let shared: SharedFileList }
        let listing = try JSONDecoder().decode(Listing.self, from: Data(listed.standardOutput.utf8))
        #expect(listing.shared.files == [SharedFile(path: home + "/album", directory: true)], "\(listed)")

        // Taken back: the app can no longer open it.
        let unshare = try await CLIRun.run(bgctl, ["unshare", id, "--socket", daemon.socketPath])
        #expect(unshare.status == 0 && unshare.standardOutput == "nothing is shared with \(id)\n", "\(unshare)")
        #expect(FileManager.default.createFile(atPath: data + "/unshared", contents: nil))
        #expect(await waitUntil { report(data)["done"] != nil }, "\(report(data))")
        #expect(report(data)["after-unshare"]?.hasPrefix("ERR ") == true, "\(report(data))")
        #expect(!daemon.log.contains("Fatal error"), "\(daemon.log.suffix(2000))")
    }

    @Test(
        "under a root daemon, an app reads the folder a person shared and nothing beside it: not through .., a link, its own SHARE, or after unshare",
        .enabled(if: geteuid() == 0, "the person's files are root's and out of the app's uid's reach"))
    func rootDaemon() async throws {
        let scratch = try TemporaryDirectory(prefix: "share-home")
        atTeardown { scratch.remove() }
        let home = try Self.personsFiles(in: scratch, owner: 0)
        var id = ""
        let running = try await LifecycleTests.Running(prefix: "share-root") { bundles in
            id = try Self.hostileApp(home: home, into: bundles)
        }
        atTeardown { await running.tearDown() }
        try await Self.exercise(running.daemon, id: id, home: home)
    }

    @Test(
        "under a person's daemon, where the app has the person's uid, it reads what was shared and nothing beside it",
        .enabled(if: geteuid() == 0, "runs the daemon under a uid of its own, as a person's daemon"))
    func personsDaemon() async throws {
        let uid: UInt32 = 54_331
        let directory = try TemporaryDirectory(prefix: "share-person")
        atTeardown { directory.remove() }
        let home = try Self.personsFiles(in: directory, owner: uid)
        let bundles = directory.appending("bundles")
        let id = try Self.hostileApp(home: home, into: bundles)
        let daemon = try await PersonsDaemon.start(as: uid, directory: directory, bundles: bundles)
        try await Self.exercise(daemon, id: id, home: home)
    }
}
