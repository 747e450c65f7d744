import BackgrounderCore
import Testing

@Suite("BundleProblem", .timeLimit(.minutes(5)))
struct BundleProblemTests {
    @Test func descriptionIsPathKeyReason() {
        let problem = BundleProblem(
            path: "/apps/A.bundle/Info.plist",
            key: "UIBackgroundModes",
            reason: "unknown mode 'teleport'"
        )

        #expect(problem.description == "/apps/A.bundle/Info.plist: UIBackgroundModes: unknown mode 'teleport'")
        #expect("\(problem)" == problem.description)
    }

    @Test func refusalFromTheValidatorPrintsOnOneLine() throws {
        let problem = try #require(InMemoryBundle(plist: InfoPlistText.minimal.removing("CFBundleName")).refusal)

        #expect(problem.description == "/apps/Test.bundle/Info.plist: CFBundleName: required key is missing")
        #expect(!problem.description.contains("\n"))
    }
}
