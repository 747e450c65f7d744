import BackgrounderCore
import Testing

@Suite("CFBundleIdentifier rules", .timeLimit(.minutes(5)))
struct BundleIdentifierRulesTests {
    static let longest = String(repeating: "a.", count: 77) + "b"

    @Test(arguments: ["org.example.app", "com.Example.My-App2", "app", "a.b.c.d.e", "123.456", longest])
    func acceptableIdentifiers(identifier: String) throws {
        #expect(BundleIdentifierRules.problem(with: identifier) == nil)

        let plist = InfoPlistText.minimal.setting("CFBundleIdentifier", .string(identifier))
        #expect(try InMemoryBundle(plist: plist).validate().get().manifest.bundleIdentifier.rawValue == identifier)
    }

    @Test(arguments: [
        "org.example/app", "org.example.my_app", "org example", "org.exämple", "org.example.app!", "../etc",
    ])
    func forbiddenCharactersAreRefused(identifier: String) throws {
        let plist = InfoPlistText.minimal.setting("CFBundleIdentifier", .string(identifier))

        let problem = try #require(InMemoryBundle(plist: plist).refusal)

        #expect(problem.key == "CFBundleIdentifier")
        #expect(problem.reason.contains("'\(identifier)'"))
        #expect(problem.reason.contains("only letters, digits, '-' and '.'"))
    }

    @Test(arguments: [".org.example", "org.example.", "org..example", "."])
    func emptyLabelIsRefused(identifier: String) throws {
        let plist = InfoPlistText.minimal.setting("CFBundleIdentifier", .string(identifier))

        let problem = try #require(InMemoryBundle(plist: plist).refusal)

        #expect(problem.path == "/apps/Test.bundle/Info.plist")
        #expect(problem.key == "CFBundleIdentifier")
        #expect(problem.reason.contains("empty label"))
    }

    @Test func identifierOverTheLimitIsRefused() throws {
        #expect(Self.longest.utf8.count == BundleIdentifierRules.maximumLength)
        let tooLong = Self.longest + "c"
        let plist = InfoPlistText.minimal.setting("CFBundleIdentifier", .string(tooLong))

        let problem = try #require(InMemoryBundle(plist: plist).refusal)

        #expect(problem.key == "CFBundleIdentifier")
        #expect(problem.reason.contains("longer than 155 characters"))
    }
}
