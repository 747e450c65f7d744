import BackgrounderAppCore
import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTestSupport
import Foundation
import Testing

/// The sharing capability's music-library rules against an embedded core, with a real music
/// folder and store in a temporary directory.
@Suite("The sharing capability on an embedded core")
@AppCoreActor
final class SharingCapabilityTests {
    let directory: TemporaryDirectory
    let store: StateStore
    let files: SharedFiles
    let core = EmbeddedAppCore()
    let sharing: SharingCapability
    let music: String

    static let player: BundleID = "org.example.player"

    init() throws {
        directory = try TemporaryDirectory(prefix: "sharing-unit")
        music = directory.appending("Music")
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: false)
        store = try StateStore(directory: directory.appending("state"), synchronous: .normal)
        files = SharedFiles([:], appDirectories: [])
        sharing = SharingCapability(files: files, store: store, musicDirectory: music)
        core.capabilities = [sharing]
        core.add(Self.manifest(usage: "Plays your music."), state: .active)
    }

    deinit {
        directory.remove()
    }

    static func manifest(usage: String?) -> AppManifest {
        AppManifest(
            bundleIdentifier: player, name: "Player", executable: "Player", backgroundModes: [.audio],
            usageDescriptions: UsageDescriptions(mediaLibrary: usage))
    }

    func decide(_ level: MediaLibraryAuthorization) throws {
        _ = try sharing.authorize(Authorize(bundle: Self.player, grant: .mediaLibrary(level)), in: core)
    }

    @Test("asking leaves a question for a person and shares nothing; without the usage string it is refused")
    func askingSharesNothing() throws {
        let status = try sharing.requestLibraryAuthorization(Self.player, in: core)
        #expect(status.status == .notDetermined && status.folder == nil)
        #expect(core.asks == [.askPerson(Self.player, .mediaLibrary, asks: "granted")])
        #expect(files.grants(for: Self.player).isEmpty)

        core.add(Self.manifest(usage: nil), state: .active)
        #expect(throws: ProtocolError.self) { try sharing.requestLibraryAuthorization(Self.player, in: core) }
    }

    @Test("allowed, the music folder is shared read-only with the app; denied later, exactly it is taken back")
    func allowedThenDenied() throws {
        let elsewhere = directory.appending("Podcasts")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        var other = try SharedFileGrant.opening(elsewhere, appDirectories: [])
        other.library = false
        _ = try sharing.share([other], with: Self.player, in: core)

        try decide(.granted)
        let status = try sharing.requestLibraryAuthorization(Self.player, in: core)
        #expect(status.status == .granted)
        #expect(status.folder == music)
        #expect(Set(files.grants(for: Self.player).map(\.path)) == [music, elsewhere])

        try decide(.denied)
        #expect(files.grants(for: Self.player).map(\.path) == [elsewhere])
        #expect(try sharing.requestLibraryAuthorization(Self.player, in: core).status == .denied)
    }
}

extension SharingCapabilityTests {
    @Test("bgctl status counts the files a person shared by name, and the music library's grants apart")
    func status() throws {
        #expect(sharing.status(in: core).counts == ["sharedFiles": 0, "libraryGrants": 0])
        try decide(.granted)
        _ = try sharing.requestLibraryAuthorization(Self.player, in: core)
        #expect(sharing.status(in: core).counts == ["sharedFiles": 0, "libraryGrants": 1])

        let podcasts = directory.appending("Podcasts")
        try FileManager.default.createDirectory(atPath: podcasts, withIntermediateDirectories: false)
        _ = try sharing.share([try SharedFileGrant.opening(podcasts, appDirectories: [])], with: Self.player, in: core)
        let status = sharing.status(in: core)
        #expect(status.name == "sharing")
        #expect(status.counts == ["sharedFiles": 1, "libraryGrants": 1])
        #expect(status.summary == "1 file(s) shared with 1 app(s); music library \(music), granted to 1 app(s)")
    }
}
