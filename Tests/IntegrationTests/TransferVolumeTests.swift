import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import BackgrounderTransfers
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Downloads for an app whose data directory is a volume of its own (a root daemon's quota):
/// the partial file is kept in the daemon's directory inside that volume so that finishing is
/// a rename, and a directory or link the app put at that name first is never written through.
/// Judged by inodes, owners and what is left on disk.
@Suite(
    "Transfers into data volumes",
    .enabled(if: SandboxTests.isRoot, "a volume per app needs a root daemon"),
    .enabled(if: FileManager.default.fileExists(atPath: "/dev/loop-control"), "no loop devices here"),
    .timeLimit(.minutes(5)), .tearsDown)
struct TransferVolumeTests {
    /// The device and inode of a file, not following a link.
    static func identity(_ path: String) -> (device: UInt, inode: UInt)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt(info.st_dev), UInt(info.st_ino))
    }

    @Test(
        "a download is written in the daemon's own 0700 directory inside the app's volume, and the file the app receives is that same file, renamed"
    )
    func partialIsRenamedIntoPlace() async throws {
        let fixture = try await TransferFixture(prefix: "xfer-volume", extraArguments: ["--app-data-quota", "64M"]) {
            _ in
        }
        atTeardown { await fixture.tearDown() }
        let size: Int64 = 24 << 20
        let sha = try await fixture.serveFile("/album.bin", bytes: size)
        // Slow enough to find the partial file while it grows.
        fixture.server.inject(.drip(bytesPerSecond: 8 << 20), at: "/album.bin")
        let id = try fixture.app(
            "Keeper", script: TransferTests.handOff([fixture.server.url("/album.bin")], then: "serve"))
        _ = try fixture.request(.reload)
        _ = try fixture.request(.open(OpenApp(bundle: BundleID(id))))
        let running = await fixture.waitForTransfers { ($0.first?.bytesReceived ?? 0) > 1 << 20 }
        let transfer = try #require(running.first?.id, "\(fixture.daemon.log.suffix(2000))")
        let partials = fixture.dataDirectory(id) + "/" + TransferFiles.volumeDirectoryName
        let partial = try #require(Self.identity(partials + "/\(transfer).part"), "\(fixture.partialFiles(id))")
        #expect(Self.identity(fixture.dataDirectory(id))?.device == partial.device)
        var info = stat()
        #expect(lstat(partials, &info) == 0)
        #expect(
            info.st_uid == geteuid() && info.st_mode & 0o7777 == 0o700, "owner \(info.st_uid), mode \(info.st_mode)")
        #expect(
            (try FileManager.default.contentsOfDirectory(atPath: fixture.daemon.stateDirectory + "/transfers")).isEmpty)

        await waitUntil(timeout: .seconds(60)) { !fixture.reports(id, "finished").isEmpty }
        let finished = try #require(fixture.reports(id, "finished").first, "\(fixture.daemon.log.suffix(2000))")
        #expect(finished["state"] as? String == "completed")
        #expect(await fixture.downloaded(id, transfer: transfer) == sha)
        // The app moved it within its volume (a rename too): the inode the daemon wrote.
        let delivered = Self.identity(fixture.dataDirectory(id) + "/downloads/\(transfer)")
        #expect(delivered?.inode == partial.inode && delivered?.device == partial.device)
        #expect(fixture.partialFiles(id).isEmpty)
    }

    @Test(
        "an app that puts its own directory, or a link to one, where the daemon keeps its partial files gets its download whole, and nothing is written through either"
    )
    func appMadeNameIsPassedOver() async throws {
        let fixture = try await TransferFixture(
            prefix: "xfer-volume-hostile", extraArguments: ["--app-data-quota", "64M"]
        ) { _ in }
        atTeardown { await fixture.tearDown() }
        let sha = try await fixture.serveFile("/episode.bin", bytes: 4 << 20)
        // Two seconds each, to look into the app's directories while the bytes arrive.
        fixture.server.inject(.drip(bytesPerSecond: 2 << 20), at: "/episode.bin")
        let url = fixture.server.url("/episode.bin")
        let name = TransferFiles.volumeDirectoryName
        // Each claims the name before its first transfer (the daemon has made nothing there yet).
        let linker = try fixture.app(
            "Linker",
            script: """
                trap = os.path.join(DATA, "trap")
                if not os.path.lexists(os.path.join(DATA, "\(name)")):
                    os.makedirs(trap, exist_ok=True)
                    os.symlink(trap, os.path.join(DATA, "\(name)"))
                """ + "\n" + TransferTests.handOff([url], then: "serve"))
        let squatter = try fixture.app(
            "Squatter",
            script: """
                if not os.path.lexists(os.path.join(DATA, "\(name)")):
                    os.mkdir(os.path.join(DATA, "\(name)"), 0o777)
                """ + "\n" + TransferTests.handOff([url], then: "serve"))
        _ = try fixture.request(.reload)
        for app in [linker, squatter] {
            _ = try fixture.request(.open(OpenApp(bundle: BundleID(app))))
        }
        // The app's directories hold only what the app put there, all along: nothing of the
        // daemon's, partial or finished.
        let trap = fixture.dataDirectory(linker) + "/trap"
        let squatted = fixture.dataDirectory(squatter) + "/" + name
        var seen: Set<String> = []
        await waitUntil(timeout: .seconds(60)) {
            for directory in [trap, squatted] {
                seen.formUnion(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []))
            }
            return [linker, squatter].allSatisfy { !fixture.reports($0, "finished").isEmpty }
        }
        #expect(seen.isEmpty, "written through the app's own directory: \(seen)")
        for app in [linker, squatter] {
            let finished = try #require(
                fixture.reports(app, "finished").first,
                "\(app): \(fixture.appLog(app)) \(fixture.daemon.log.suffix(2000))")
            #expect(finished["state"] as? String == "completed", "\(app): \(finished)")
            let transfer = try #require(finished["transfer"] as? Int)
            #expect(await fixture.downloaded(app, transfer: transfer) == sha, "\(app)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: trap).isEmpty)
        var link = stat()
        #expect(lstat(fixture.dataDirectory(linker) + "/" + name, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK)
        #expect(try FileManager.default.contentsOfDirectory(atPath: squatted).isEmpty)
        var own = stat()
        #expect(lstat(squatted, &own) == 0 && own.st_uid != geteuid(), "still the app's own directory")
        #expect(throws: Never.self) { try fixture.daemon.status() }
    }
}
