import BackgrounderCore
import Testing

/// `BackgrounderPolicySchedulingEntryPoint`: optional, a C name, read only for policy bundles.
@Suite("Scheduling: the policy bundle's scheduling entry point", .timeLimit(.minutes(5)))
struct SchedulingEntryPointManifestTests {
    static let policy = InfoPlistText.minimal
        .setting("CFBundlePackageType", .string("BNDL"))
        .setting("BackgrounderPolicyEntryPoint", .string("policy_entry"))

    @Test("named, it is kept; absent, the plug-in has none")
    func namedOrAbsent() throws {
        let named = Self.policy.setting("BackgrounderPolicySchedulingEntryPoint", .string("scheduling_v1"))
        #expect(
            try InMemoryBundle(plist: named).validate().get().manifest.policySchedulingEntryPoint == "scheduling_v1")
        #expect(try InMemoryBundle(plist: Self.policy).validate().get().manifest.policySchedulingEntryPoint == nil)
    }

    @Test("a name that is not a C identifier is refused, naming the key", arguments: ["", "bad name", "f()", "é"])
    func badName(_ name: String) throws {
        let plist = Self.policy.setting("BackgrounderPolicySchedulingEntryPoint", .string(name))
        let problem = try #require(InMemoryBundle(plist: plist).refusal)
        #expect(problem.key == "BackgrounderPolicySchedulingEntryPoint")
        #expect(problem.reason.contains("C function"))
    }

    @Test("an app's Info.plist may not smuggle one in")
    func ignoredForApps() throws {
        let app = InfoPlistText.minimal.setting("BackgrounderPolicySchedulingEntryPoint", .string("scheduling_v1"))
        #expect(try InMemoryBundle(plist: app).validate().get().manifest.policySchedulingEntryPoint == nil)
    }
}
