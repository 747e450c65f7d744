import BackgrounderCore
import Foundation
import Testing

@Suite("Valid manifests", .timeLimit(.minutes(5)))
struct ValidManifestTests {
    static let complete = InfoPlistText.minimal
        .setting("CFBundleIdentifier", .string("org.example.complete-app"))
        .setting("CFBundleName", .string("Complete"))
        .setting("CFBundleExecutable", .string("Complete"))
        .setting("UIBackgroundModes", .strings(["audio", "location", "processing"]))
        .setting("UIApplicationExitsOnSuspend", .bool(true))
        .setting("BGAllowsJIT", .bool(true))
        .setting("BGTaskSchedulerPermittedIdentifiers", .strings(["org.example.refresh", "org.example.clean"]))
        .setting("NSLocationAlwaysAndWhenInUseUsageDescription", .string("Tracks your walks."))
        .setting("NSLocationWhenInUseUsageDescription", .string("Shows where you are."))
        .setting("NSMicrophoneUsageDescription", .string("Records <voice> notes & memos."))
        .setting("NSAppleMusicUsageDescription", .string("Plays your music."))

    @Test func everyKeyIsRead() throws {
        let source = InMemoryBundle(path: "/apps/Complete.bundle", plist: Self.complete, executable: "Complete")
        let bundle = try source.validate().get()

        #expect(bundle.path == "/apps/Complete.bundle")
        #expect(bundle.executablePath == "/apps/Complete.bundle/Complete")
        #expect(bundle.warnings.isEmpty)
        let manifest = bundle.manifest
        #expect(manifest.bundleIdentifier == "org.example.complete-app")
        #expect(manifest.name == "Complete")
        #expect(manifest.executable == "Complete")
        #expect(manifest.backgroundModes == [.audio, .location, .processing])
        #expect(manifest.sortedModeNames == ["audio", "location", "processing"])
        #expect(manifest.modesWithoutLinuxMeaning.isEmpty)
        #expect(manifest.exitsOnSuspend)
        #expect(manifest.allowsJIT)
        #expect(manifest.permittedTaskIdentifiers == ["org.example.refresh", "org.example.clean"])
        #expect(
            manifest.usageDescriptions
                == UsageDescriptions(
                    locationAlwaysAndWhenInUse: "Tracks your walks.",
                    locationWhenInUse: "Shows where you are.",
                    microphone: "Records <voice> notes & memos.",
                    mediaLibrary: "Plays your music."
                )
        )
    }

    @Test func optionalKeysDefaultToNothing() throws {
        let manifest = try InMemoryBundle(plist: .minimal).validate().get().manifest

        #expect(manifest == AppManifest(bundleIdentifier: "org.example.test", name: "Test", executable: "Test"))
    }

    @Test func keysBackgrounderDoesNotKnowAreIgnored() throws {
        let plist = InfoPlistText.minimal
            .setting("CFBundleVersion", .string("1.0"))
            .setting("LSRequiresIPhoneOS", .bool(true))
            .setting("UIRequiredDeviceCapabilities", .strings(["armv7"]))
            .setting("CFBundleIcons", .raw("<dict><key>x</key><integer>1</integer></dict>"))

        let bundle = try InMemoryBundle(plist: plist).validate().get()

        #expect(bundle.manifest.bundleIdentifier == "org.example.test")
        #expect(bundle.warnings.isEmpty)
    }

    @Test func exitsOnSuspendFalseIsRead() throws {
        let plist = InfoPlistText.minimal.setting("UIApplicationExitsOnSuspend", .bool(false))

        #expect(try InMemoryBundle(plist: plist).validate().get().manifest.exitsOnSuspend == false)
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.binary, .xml])
    func serializedPropertyListsAreAccepted(format: PropertyListSerialization.PropertyListFormat) throws {
        let dictionary: [String: Any] = [
            "CFBundleIdentifier": "org.example.binary",
            "CFBundleName": "Binary",
            "CFBundleExecutable": "Test",
            "UIBackgroundModes": ["fetch", "processing"],
            "UIApplicationExitsOnSuspend": true,
            "BGTaskSchedulerPermittedIdentifiers": ["org.example.binary.task"],
            "NSMicrophoneUsageDescription": "Listens.",
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: dictionary, format: format, options: 0)
        if format == .binary {
            #expect(data.starts(with: Data("bplist00".utf8)))
        }

        let manifest = try InMemoryBundle(infoPlist: data).validate().get().manifest

        #expect(
            manifest
                == AppManifest(
                    bundleIdentifier: "org.example.binary",
                    name: "Binary",
                    executable: "Test",
                    backgroundModes: [.fetch, .processing],
                    exitsOnSuspend: true,
                    permittedTaskIdentifiers: ["org.example.binary.task"],
                    usageDescriptions: UsageDescriptions(microphone: "Listens.")
                )
        )
    }

    /// The sample shipped with the package must stay loadable.
    @Test func helloSampleManifestLoads() throws {
        let packageRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("Samples/Hello/Info.plist"))

        let manifest = try InMemoryBundle(infoPlist: data, executable: "Hello").validate().get().manifest

        #expect(manifest.bundleIdentifier == "org.backgrounder.samples.hello")
        #expect(manifest.executable == "Hello")
        #expect(manifest.backgroundModes == [.fetch])
    }
}
