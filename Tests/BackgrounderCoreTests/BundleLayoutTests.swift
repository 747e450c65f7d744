import BackgrounderCore
import Foundation
import Testing

/// The checks on the bundle directory and its `Info.plist` file, before any key is read.
@Suite("Bundle directory and Info.plist file", .timeLimit(.minutes(5)))
struct BundleLayoutTests {
    static let good = InMemoryBundle(plist: .minimal)
    static let plistPath = "/apps/Test.bundle/Info.plist"

    @Test func missingDirectoryIsRefused() throws {
        let problem = try #require(Self.good.replacing("", with: nil).refusal)

        #expect(problem.path == "/apps/Test.bundle")
        #expect(problem.key == "bundle")
        #expect(problem.reason == "no such directory")
    }

    @Test func regularFileNamedLikeABundleIsRefused() throws {
        let file = InMemoryBundle.file(at: "/apps/Test.bundle", contents: Data("x".utf8), permissions: 0o644)

        let problem = try #require(Self.good.replacing("", with: file).refusal)

        #expect(problem.path == "/apps/Test.bundle")
        #expect(problem.key == "bundle")
        #expect(problem.reason == "not a directory")
    }

    @Test(arguments: [UInt32(0o775), 0o757, 0o777, 0o1777])
    func writableDirectoryIsRefusedWithItsMode(permissions: UInt32) throws {
        let problem = try #require(Self.good.changing("", permissions: permissions).refusal)

        #expect(problem.path == "/apps/Test.bundle")
        #expect(problem.key == "bundle")
        #expect(problem.reason.contains("writable by group or others (mode \(String(permissions, radix: 8)))"))
        #expect(problem.reason.contains("chmod go-w"))
    }

    @Test func directoryOwnedByAStrangerIsRefused() throws {
        let problem = try #require(Self.good.changing("", owner: 501).refusal)

        #expect(problem.key == "bundle")
        #expect(problem.reason.contains("owned by uid 501"))
    }

    @Test func readOnlyAndPrivateModesAreAccepted() throws {
        let source = Self.good.changing("", permissions: 0o500).changing("Info.plist", permissions: 0o400)
            .changing("Test", permissions: 0o700)

        #expect(throws: Never.self) { try source.validate().get() }
    }

    @Test func missingInfoPlistIsRefused() throws {
        let problem = try #require(Self.good.replacing("Info.plist", with: nil).refusal)

        #expect(problem.path == Self.plistPath)
        #expect(problem.key == "Info.plist")
        #expect(problem.reason == "missing")
    }

    @Test func infoPlistThatIsNotARegularFileIsRefused() throws {
        let target = InMemoryBundle.file(
            at: "/etc/Info.plist", contents: Data(InfoPlistText.minimal.xml.utf8), permissions: 0o644)
        let linked = Self.good.replacing("Info.plist", with: InMemoryBundle.symbolicLink(to: target))
        let directory = Self.good.replacing("Info.plist", with: InMemoryBundle.directory(at: Self.plistPath))

        for source in [linked, directory] {
            let problem = try #require(source.refusal)
            #expect(problem.path == Self.plistPath)
            #expect(problem.key == "Info.plist")
            #expect(problem.reason == "not a regular file")
        }
    }

    @Test func writableInfoPlistIsRefused() throws {
        let problem = try #require(Self.good.changing("Info.plist", permissions: 0o646).refusal)

        #expect(problem.path == Self.plistPath)
        #expect(problem.key == "Info.plist")
        #expect(problem.reason.contains("mode 646"))
    }

    @Test func infoPlistOwnedByAStrangerIsRefused() throws {
        let problem = try #require(Self.good.changing("Info.plist", owner: 1000).refusal)

        #expect(problem.key == "Info.plist")
        #expect(problem.reason.contains("owned by uid 1000"))
    }

    @Test func emptyInfoPlistIsRefused() throws {
        let problem = try #require(InMemoryBundle(infoPlist: Data()).refusal)

        #expect(problem.path == Self.plistPath)
        #expect(problem.key == "Info.plist")
        #expect(problem.reason == "empty file")
    }

    @Test func sizeLimitIsInclusive() throws {
        let data = Data(InfoPlistText.minimal.xml.utf8)
        let source = InMemoryBundle(infoPlist: data)
        let atLimit = ManifestValidator(trustedOwners: [0], maximumInfoPlistSize: data.count)
        let belowSize = ManifestValidator(trustedOwners: [0], maximumInfoPlistSize: data.count - 1)

        #expect(throws: Never.self) { try atLimit.validate(source) }
        let problem = try #require(#expect(throws: BundleProblem.self) { try belowSize.validate(source) })
        #expect(problem.key == "Info.plist")
        #expect(problem.reason == "\(data.count) bytes, over the \(data.count - 1)-byte limit")
    }

    @Test func defaultSizeLimitIs256KiB() {
        #expect(ManifestValidator(trustedOwners: [0]).maximumInfoPlistSize == 262_144)
    }

    @Test(arguments: ["hello world", "<plist><dict><key>A</key></plist>", "<?xml version=\"1.0\"?><plist><dict>"])
    func bytesThatAreNotAPropertyListAreRefused(text: String) throws {
        let problem = try #require(InMemoryBundle(infoPlist: Data(text.utf8)).refusal)

        #expect(problem.path == Self.plistPath)
        #expect(problem.key == "Info.plist")
        #expect(problem.reason.contains("not a valid property list"))
    }

    @Test(arguments: ["<array><string>a</string></array>", "<string>just text</string>", "<integer>3</integer>"])
    func topLevelThatIsNotADictionaryIsRefused(body: String) throws {
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\(body)</plist>\n"

        let problem = try #require(InMemoryBundle(infoPlist: Data(xml.utf8)).refusal)

        #expect(problem.path == Self.plistPath)
        #expect(problem.key == "Info.plist")
        #expect(problem.reason == "the top level is not a dictionary")
    }
}
