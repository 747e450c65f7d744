import BackgrounderCore
import Testing

@Suite("UIBackgroundModes", .timeLimit(.minutes(5)))
struct BackgroundModeTests {
    /// Adds what each mode needs so only the mode itself is under test.
    static func plist(declaring modes: [String]) -> InfoPlistText {
        InfoPlistText.minimal
            .setting("UIBackgroundModes", .strings(modes))
            .setting("NSLocationAlwaysAndWhenInUseUsageDescription", .string("Tracks walks."))
            .setting("BGTaskSchedulerPermittedIdentifiers", .strings(["org.example.test.task"]))
    }

    @Test(arguments: BackgroundMode.allCases)
    func eachKnownModeLoads(mode: BackgroundMode) throws {
        let bundle = try InMemoryBundle(plist: Self.plist(declaring: [mode.rawValue])).validate().get()

        #expect(bundle.manifest.backgroundModes == [mode])
        #expect(bundle.manifest.modesWithoutLinuxMeaning.isEmpty)
        #expect(bundle.warnings.isEmpty)
    }

    @Test func iOSSpellingsAreTheRawValues() {
        #expect(
            BackgroundMode.allCases.map(\.rawValue).sorted()
                == ["audio", "fetch", "location", "processing", "remote-notification", "voip"]
        )
    }

    @Test func repeatedModesCollapse() throws {
        let bundle = try InMemoryBundle(plist: Self.plist(declaring: ["fetch", "fetch", "audio"])).validate().get()

        #expect(bundle.manifest.backgroundModes == [.fetch, .audio])
    }

    @Test(arguments: ["external-accessory", "bluetooth-central", "bluetooth-peripheral", "newsstand-content"])
    func modesWithoutLinuxMeaningWarnAndLoad(mode: String) throws {
        let bundle = try InMemoryBundle(plist: Self.plist(declaring: ["fetch", mode])).validate().get()

        #expect(bundle.manifest.backgroundModes == [.fetch])
        #expect(bundle.manifest.modesWithoutLinuxMeaning == [mode])
        let warning = try #require(bundle.warnings.only)
        #expect(warning.path == "/apps/Test.bundle/Info.plist")
        #expect(warning.key == "UIBackgroundModes")
        #expect(warning.reason.contains("'\(mode)'"))
        #expect(warning.reason.contains("no meaning on Linux"))
    }

    @Test(arguments: ["teleport", "Audio", "audio ", "", "remote_notification"])
    func unknownModeIsRefusedByName(mode: String) throws {
        let problem = try #require(InMemoryBundle(plist: Self.plist(declaring: ["audio", mode])).refusal)

        #expect(problem.path == "/apps/Test.bundle/Info.plist")
        #expect(problem.key == "UIBackgroundModes")
        #expect(problem.reason.contains("unknown mode '\(mode)'"))
        #expect(problem.reason.contains("remote-notification"), "the known modes are listed")
    }

    @Test func locationWithoutAlwaysUsageDescriptionIsRefused() throws {
        let plist = InfoPlistText.minimal
            .setting("UIBackgroundModes", .strings(["location"]))
            .setting("NSLocationWhenInUseUsageDescription", .string("Only the when-in-use text."))

        let problem = try #require(InMemoryBundle(plist: plist).refusal)

        #expect(problem.path == "/apps/Test.bundle/Info.plist")
        #expect(problem.key == "NSLocationAlwaysAndWhenInUseUsageDescription")
        #expect(problem.reason.contains("location background mode"))
    }

    @Test func processingWithoutTaskIdentifiersWarnsAndLoads() throws {
        let plist = InfoPlistText.minimal.setting("UIBackgroundModes", .strings(["processing"]))

        let bundle = try InMemoryBundle(plist: plist).validate().get()

        #expect(bundle.manifest.backgroundModes == [.processing])
        let warning = try #require(bundle.warnings.only)
        #expect(warning.path == "/apps/Test.bundle/Info.plist")
        #expect(warning.key == "BGTaskSchedulerPermittedIdentifiers")
        #expect(warning.reason.contains("processing mode"))
        #expect(warning.reason.contains("no task identifier"))
    }

    @Test func emptyModeListGrantsNothing() throws {
        let bundle = try InMemoryBundle(plist: Self.plist(declaring: [])).validate().get()

        #expect(bundle.manifest.backgroundModes.isEmpty)
        #expect(bundle.warnings.isEmpty)
    }
}
