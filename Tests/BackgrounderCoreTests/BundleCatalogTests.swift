import BackgrounderCore
import Testing

@Suite("BundleCatalog", .timeLimit(.minutes(5)))
struct BundleCatalogTests {
    static func bundle(at path: String, identifier: BundleID) -> ValidatedBundle {
        ValidatedBundle(path: path, manifest: AppManifest(bundleIdentifier: identifier, name: "N", executable: "N"))
    }

    static let first = bundle(at: "/apps/A.bundle", identifier: "org.example.same")
    static let second = bundle(at: "/apps/B.bundle", identifier: "org.example.same")

    @Test func duplicateIdentifierRefusesTheSecondNamingBothPaths() throws {
        let catalog = BundleCatalog([.success(Self.first), .success(Self.second)])

        #expect(catalog.loaded == ["org.example.same": Self.first])
        let problem = try #require(catalog.refused.only)
        #expect(problem.path == "/apps/B.bundle")
        #expect(problem.key == "CFBundleIdentifier")
        #expect(problem.reason.contains("duplicate identifier org.example.same"))
        #expect(problem.reason.contains("/apps/A.bundle"))
    }

    @Test func scanOrderDecidesWhichDuplicateLoads() throws {
        let catalog = BundleCatalog([.success(Self.second), .success(Self.first)])

        #expect(catalog.loaded["org.example.same"]?.path == "/apps/B.bundle")
        let problem = try #require(catalog.refused.only)
        #expect(problem.path == "/apps/A.bundle")
        #expect(problem.reason.contains("/apps/B.bundle"))
    }

    @Test func addingKeepsTheFirst() throws {
        var catalog = BundleCatalog()
        catalog.add(Self.first)
        catalog.add(Self.second)

        #expect(catalog.loaded["org.example.same"] == Self.first)
        #expect(catalog.refused.map(\.path) == ["/apps/B.bundle"])
    }

    @Test func refusalsKeepScanOrderAndDistinctBundlesAllLoad() {
        let broken = BundleProblem(path: "/apps/Z.bundle", key: "Info.plist", reason: "missing")
        let other = Self.bundle(at: "/apps/C.bundle", identifier: "org.example.other")
        let catalog = BundleCatalog([.failure(broken), .success(Self.first), .success(Self.second), .success(other)])

        #expect(catalog.refused.map(\.path) == ["/apps/Z.bundle", "/apps/B.bundle"])
        #expect(catalog.sortedLoaded.map(\.path) == ["/apps/C.bundle", "/apps/A.bundle"])
    }
}
