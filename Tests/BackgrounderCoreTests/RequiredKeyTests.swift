import BackgrounderCore
import Testing

@Suite("Required keys and empty strings", .timeLimit(.minutes(5)))
struct RequiredKeyTests {
    static let requiredKeys = ["CFBundleIdentifier", "CFBundleName", "CFBundleExecutable"]

    @Test(arguments: requiredKeys)
    func missingRequiredKeyIsRefused(key: String) throws {
        let problem = try #require(InMemoryBundle(plist: InfoPlistText.minimal.removing(key)).refusal)

        #expect(problem.path == "/apps/Test.bundle/Info.plist")
        #expect(problem.key == key)
        #expect(problem.reason == "required key is missing")
    }

    @Test(arguments: requiredKeys, ["", " ", "\t\n  "])
    func blankRequiredStringIsRefused(key: String, blank: String) throws {
        let plist = InfoPlistText.minimal.setting(key, .string(blank))

        let problem = try #require(InMemoryBundle(plist: plist).refusal)

        #expect(problem.path == "/apps/Test.bundle/Info.plist")
        #expect(problem.key == key)
        #expect(problem.reason.contains("must not be empty"))
    }

    @Test(
        arguments: [
            "NSLocationAlwaysAndWhenInUseUsageDescription", "NSLocationWhenInUseUsageDescription",
            "NSMicrophoneUsageDescription", "NSAppleMusicUsageDescription",
        ],
        ["", "   "]
    )
    func blankUsageDescriptionIsRefused(key: String, blank: String) throws {
        let plist = InfoPlistText.minimal.setting(key, .string(blank))

        let problem = try #require(InMemoryBundle(plist: plist).refusal)

        #expect(problem.key == key)
        #expect(problem.reason.contains("must say why"))
    }

    @Test(arguments: ["", "  "])
    func blankTaskIdentifierIsRefused(blank: String) throws {
        let plist = InfoPlistText.minimal
            .setting("BGTaskSchedulerPermittedIdentifiers", .strings(["org.example.task", blank]))

        let problem = try #require(InMemoryBundle(plist: plist).refusal)

        #expect(problem.key == "BGTaskSchedulerPermittedIdentifiers")
        #expect(problem.reason.contains("empty identifier"))
    }
}
