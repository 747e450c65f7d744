import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import Testing

/// Inputs written to break the parser rather than by mistake.
@Suite("Hostile Info.plist bytes", .timeLimit(.minutes(5)))
struct HostileInputTests {
    /// The required keys, left open so a test can append hostile XML after them.
    static var openManifest: String {
        InfoPlistText.minimal.xml.components(separatedBy: "</dict>")[0]
    }

    /// Foundation's XML property-list scanner recurses once per nesting level, so ten
    /// thousand unclosed `<array>` tags (well under the size limit) overflow the stack.
    /// These run in a child process so a crash fails one test, not the whole run.
    @Test func deeplyNestedXMLIsRefusedWithoutCrashing() async {
        await #expect(processExitsWith: .success) {
            let text = HostileInputTests.openManifest + "<key>N</key>" + String(repeating: "<array>", count: 30_000)
            let problem = InMemoryBundle(infoPlist: Data(text.utf8)).refusal
            exit(problem?.key == "Info.plist" ? EXIT_SUCCESS : EXIT_FAILURE)
        }
    }

    /// Closing tags inside a CDATA section are text to the parser; a depth count that takes
    /// them as real would let as many extra levels through.
    @Test func closingTagsInCDATADoNotBuyExtraDepth() async {
        await #expect(processExitsWith: .success) {
            let levels = 12_000
            let text =
                HostileInputTests.openManifest
                + "<key>S</key><string><![CDATA[" + String(repeating: "</array>", count: levels) + "]]></string>"
                + "<key>N</key>" + String(repeating: "<array>", count: levels)
            precondition(text.utf8.count < ManifestValidator(trustedOwners: [0]).maximumInfoPlistSize)
            let problem = InMemoryBundle(infoPlist: Data(text.utf8)).refusal
            exit(problem?.key == "Info.plist" ? EXIT_SUCCESS : EXIT_FAILURE)
        }
    }

    /// The same with a processing instruction, which the parser skips up to `?>`.
    @Test func closingTagsInAProcessingInstructionDoNotBuyExtraDepth() async {
        await #expect(processExitsWith: .success) {
            let levels = 12_000
            let text =
                HostileInputTests.openManifest
                + "<?note >" + String(repeating: "</array>", count: levels) + "?>"
                + "<key>N</key>" + String(repeating: "<array>", count: levels)
            precondition(text.utf8.count < ManifestValidator(trustedOwners: [0]).maximumInfoPlistSize)
            let problem = InMemoryBundle(infoPlist: Data(text.utf8)).refusal
            exit(problem?.key == "Info.plist" ? EXIT_SUCCESS : EXIT_FAILURE)
        }
    }

    /// Too shallow to crash the parser, so a regression fails here rather than crashing.
    @Test func nestingFarBeyondAManifestsNeedsIsRefused() throws {
        let text =
            Self.openManifest + "<key>N</key>" + String(repeating: "<array>", count: 200)
            + String(repeating: "</array>", count: 200) + "</dict></plist>"

        let problem = try #require(InMemoryBundle(infoPlist: Data(text.utf8)).refusal)

        #expect(problem.path == "/apps/Test.bundle/Info.plist")
        #expect(problem.key == "Info.plist")
        #expect(problem.reason.contains("nested deeper than"))
    }

    @Test func ordinaryNestingAndTagsInCommentsAreNotCounted() throws {
        let text =
            Self.openManifest
            + "<!-- " + String(repeating: "<array>", count: 200) + " -->"
            + "<key>N</key><array><dict><key>K</key><array><string>x</string><array/></array></dict></array>"
            + String(repeating: "<key>E</key><dict/>", count: 200)
            + "</dict></plist>"

        #expect(throws: Never.self) { try InMemoryBundle(infoPlist: Data(text.utf8)).validate().get() }
    }

    @Test func binaryPlistWithThousandsOfObjectsIsRefused() throws {
        let dictionary: [String: Any] = [
            "CFBundleIdentifier": "org.example.many",
            "CFBundleName": "Many",
            "CFBundleExecutable": "Test",
            "Padding": (0..<5000).map { "item \($0)" },
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)

        let problem = try #require(InMemoryBundle(infoPlist: data).refusal)

        #expect(problem.key == "Info.plist")
        #expect(problem.reason.contains("objects"))
    }

    /// A valid binary plist with a few bytes overwritten, from a fixed seed so failures repeat.
    static func mutatedBinaryPlist(seed: UInt64) throws -> Data {
        let dictionary: [String: Any] = [
            "CFBundleIdentifier": "org.example.fuzz",
            "CFBundleName": "Fuzz",
            "CFBundleExecutable": "Test",
            "UIBackgroundModes": ["audio", "fetch"],
        ]
        var bytes = [UInt8](
            try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0))
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<(1 + generator.next() % 6) {
            let index = 8 + Int(generator.next() % UInt64(bytes.count - 8))
            bytes[index] = UInt8(truncatingIfNeeded: generator.next())
        }
        return Data(bytes)
    }

    @Test(arguments: 1...300)
    func mutatedBinaryPlistIsRefusedOrLoadsWithoutCrashing(seed: Int) throws {
        let source = InMemoryBundle(infoPlist: try Self.mutatedBinaryPlist(seed: UInt64(seed)))

        switch source.validate() {
        case .success(let bundle):
            #expect(BundleIdentifierRules.problem(with: bundle.manifest.bundleIdentifier.rawValue) == nil)
        case .failure(let problem):
            #expect(problem.path.hasPrefix("/apps/Test.bundle/"))
            #expect(!problem.reason.isEmpty)
        }
    }

    @Test func bplistMagicFollowedByGarbageIsRefused() throws {
        var generator = SeededGenerator(seed: 0x5EED)
        let garbage = Data("bplist00".utf8) + Data((0..<512).map { _ in UInt8(truncatingIfNeeded: generator.next()) })

        let problem = try #require(InMemoryBundle(infoPlist: garbage).refusal)

        #expect(problem.key == "Info.plist")
        #expect(problem.reason.contains("not a valid property list"))
    }
}
