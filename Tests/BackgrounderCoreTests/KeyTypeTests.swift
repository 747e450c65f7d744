import BackgrounderCore
import Testing

@Suite("Values of the wrong type", .timeLimit(.minutes(5)))
struct KeyTypeTests {
    struct Mistyped: Sendable, CustomTestStringConvertible {
        var key: String
        var value: PlistValue
        var expected: String
        var testDescription: String { "\(key) = \(value.xml)" }
    }

    static let cases: [Mistyped] = [
        Mistyped(key: "CFBundleIdentifier", value: .integer(42), expected: "must be a string"),
        Mistyped(key: "CFBundleName", value: .integer(7), expected: "must be a string"),
        Mistyped(key: "CFBundleExecutable", value: .bool(true), expected: "must be a string"),
        Mistyped(key: "CFBundleExecutable", value: .strings(["Test"]), expected: "must be a string"),
        Mistyped(key: "UIBackgroundModes", value: .string("audio"), expected: "must be an array of strings"),
        Mistyped(
            key: "UIBackgroundModes",
            value: .raw("<array><integer>1</integer></array>"),
            expected: "must be an array of strings"
        ),
        Mistyped(key: "UIApplicationExitsOnSuspend", value: .string("YES"), expected: "must be a boolean"),
        Mistyped(key: "UIApplicationExitsOnSuspend", value: .integer(1), expected: "must be a boolean"),
        Mistyped(key: "BGAllowsJIT", value: .string("YES"), expected: "must be a boolean"),
        Mistyped(key: "CFBundlePackageType", value: .integer(1), expected: "must be a string"),
        Mistyped(key: "BackgrounderPolicyEntryPoint", value: .bool(true), expected: "must be a string"),
        Mistyped(key: "BackgrounderPolicySchedulingEntryPoint", value: .integer(2), expected: "must be a string"),
        Mistyped(
            key: "BGTaskSchedulerPermittedIdentifiers",
            value: .string("org.example.task"),
            expected: "must be an array of strings"
        ),
        Mistyped(key: "NSLocationAlwaysAndWhenInUseUsageDescription", value: .integer(1), expected: "must be a string"),
        Mistyped(key: "NSLocationWhenInUseUsageDescription", value: .strings(["why"]), expected: "must be a string"),
        Mistyped(key: "NSMicrophoneUsageDescription", value: .raw("<dict/>"), expected: "must be a string"),
        Mistyped(key: "NSAppleMusicUsageDescription", value: .bool(true), expected: "must be a string"),
    ]

    @Test(arguments: cases)
    func mistypedValueIsRefusedNamingTheKey(_ mistyped: Mistyped) throws {
        let plist = InfoPlistText.minimal.setting(mistyped.key, mistyped.value)

        let problem = try #require(InMemoryBundle(plist: plist).refusal)

        #expect(problem.path == "/apps/Test.bundle/Info.plist")
        #expect(problem.key == mistyped.key)
        #expect(problem.reason.hasPrefix(mistyped.expected))
    }

    @Test func everyReadKeyHasAMistypedCase() {
        let covered = Set(Self.cases.map(\.key))

        #expect(covered == Set(InfoPlistKey.allCases.map(\.rawValue)))
    }
}
