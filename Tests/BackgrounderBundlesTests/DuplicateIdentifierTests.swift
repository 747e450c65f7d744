import BackgrounderBundles
import BackgrounderCore
import Testing

@Suite("Duplicate identifiers on disk")
struct DuplicateIdentifierTests {
    @Test func secondInSortedOrderIsRefusedNamingBoth() throws {
        try withScratchDirectory { fixture in
            // Made in reverse order, so only sorting can put Alpha first.
            let second = try fixture.makeGoodBundle("Beta.bundle", identifier: "org.example.same")
            let first = try fixture.makeGoodBundle("Alpha.bundle", identifier: "org.example.same")

            let catalog = BundleScanner().scan(directories: [fixture.directory]).catalog

            #expect(catalog.loaded["org.example.same"]?.path == first)
            let problem = try #require(catalog.refused.only)
            #expect(problem.path == second)
            #expect(problem.key == "CFBundleIdentifier")
            #expect(problem.reason.contains("duplicate identifier org.example.same"))
            #expect(problem.reason.contains(first))
        }
    }

    @Test func earlierDirectoryWins() throws {
        try withScratchDirectory { fixture in
            let system = fixture.path("system")
            let user = fixture.path("user")
            try fixture.makeDirectory(system)
            try fixture.makeDirectory(user)
            let systemFixture = BundleFixture(directory: system)
            let userFixture = BundleFixture(directory: user)
            let preferred = try userFixture.makeGoodBundle("Zed.bundle", identifier: "org.example.same")
            let shadowed = try systemFixture.makeGoodBundle("Alpha.bundle", identifier: "org.example.same")

            let catalog = BundleScanner().scan(directories: [user, system]).catalog

            #expect(catalog.loaded["org.example.same"]?.path == preferred)
            #expect(catalog.refused.map(\.path) == [shadowed])
            #expect(catalog.refused.first?.reason.contains(preferred) == true)
        }
    }
}
