import BackgrounderBundles
import BackgrounderCore
import Foundation
import Testing

@Suite("Duplicate identifiers on disk", .timeLimit(.minutes(5)))
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

    @Test("a bundle already loaded keeps its identifier: a copy that sorts first is the one refused")
    func incumbentKeepsItsIdentifier() throws {
        try withScratchDirectory { fixture in
            let loaded = try fixture.makeGoodBundle("Hello.bundle", identifier: "org.example.same")
            let before = BundleScanner().scan(directories: [fixture.directory]).catalog
            #expect(before.loaded["org.example.same"]?.path == loaded)

            let copy = try fixture.makeGoodBundle("Dup.bundle", identifier: "org.example.same")
            let incumbents = before.loaded.mapValues(\.path)
            let after = BundleScanner().scan(directories: [fixture.directory], incumbents: incumbents).catalog
            #expect(after.loaded["org.example.same"]?.path == loaded)
            let problem = try #require(after.refused.only)
            #expect(problem.path == copy)
            #expect(problem.reason.contains("already loaded from \(loaded)"))
            // Without a history, scan order decides as before.
            #expect(
                BundleScanner().scan(directories: [fixture.directory]).catalog.loaded["org.example.same"]?.path == copy)
        }
    }

    @Test("a directory without the .bundle suffix is reported, not silently skipped")
    func directoryWithoutSuffixIsReported() throws {
        try withScratchDirectory { fixture in
            _ = try fixture.makeGoodBundle("Hello.bundle", identifier: "org.example.hello")
            let stray = fixture.path("Hello")
            try fixture.makeDirectory(stray)
            try fixture.makeDirectory(fixture.path(".hidden"))
            let (catalog, problems) = BundleScanner().scan(directories: [fixture.directory])
            #expect(catalog.loaded.count == 1)
            let problem = try #require(problems.only)
            #expect(problem.path == stray)
            #expect(problem.reason.contains("rename it to end in .bundle"))
        }
    }

    /// `org.example.same` shipped in `system/App.bundle` and overridden in `user/App.bundle`
    /// (`user` comes first in the search path).
    static func shippedAndOverride(
        in fixture: BundleFixture
    ) throws -> (user: String, system: String, shipped: String, override: String) {
        let user = fixture.path("user")
        let system = fixture.path("system")
        try fixture.makeDirectory(user)
        try fixture.makeDirectory(system)
        let shipped = try BundleFixture(directory: system).makeGoodBundle("App.bundle", identifier: "org.example.same")
        let override = try BundleFixture(directory: user).makeGoodBundle("App.bundle", identifier: "org.example.same")
        return (user, system, shipped, override)
    }

    @Test("an override put in an earlier directory still takes the identifier from the incumbent")
    func earlierDirectoryOverridesTheIncumbent() throws {
        try withScratchDirectory { fixture in
            let (user, system, shipped, override) = try Self.shippedAndOverride(in: fixture)
            let catalog = BundleScanner().scan(
                directories: [user, system], incumbents: ["org.example.same": shipped]
            ).catalog
            #expect(catalog.loaded["org.example.same"]?.path == override)
            #expect(catalog.refused.map(\.path) == [shipped])
        }
    }

    @Test(
        "a claimant of a removed app's identifier is a claim, and held only when the daemon says why; an override beside a present incumbent is none"
    )
    func claimantOfRemovedIdentifier() throws {
        try withScratchDirectory { fixture in
            let (user, system, shipped, override) = try Self.shippedAndOverride(in: fixture)
            let recorded: [BundleID: String] = ["org.example.same": shipped]
            var catalog = BundleScanner().scan(directories: [user, system], incumbents: recorded).catalog
            #expect(
                catalog.claimsOnRemovedApps(recorded: recorded) { FileManager.default.fileExists(atPath: $0) }.isEmpty)
            #expect(catalog.loaded["org.example.same"]?.path == override)

            try FileManager.default.removeItem(atPath: shipped)
            catalog = BundleScanner().scan(directories: [user, system], incumbents: recorded).catalog
            let claims = catalog.claimsOnRemovedApps(recorded: recorded) { FileManager.default.fileExists(atPath: $0) }
            #expect(claims == [BundleClaim(identifier: "org.example.same", claimant: override, previous: shipped)])
            // A claim alone loads: the daemon retires the removed app's data and grants first.
            #expect(catalog.loaded["org.example.same"]?.path == override)

            catalog.hold(claims[0], because: "its process still runs")
            #expect(catalog.loaded.isEmpty)
            let refusal = try #require(catalog.refused.first { $0.path == override })
            #expect(refusal.key == "CFBundleIdentifier")
            #expect(
                refusal.reason.contains("was the app at \(shipped), which is gone; its process still runs"),
                "\(refusal)")
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
