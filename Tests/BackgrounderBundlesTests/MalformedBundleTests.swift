import BackgrounderBundles
import BackgrounderCore
import Foundation
import Testing

@Suite("Malformed bundles on disk", .timeLimit(.minutes(5)))
struct MalformedBundleTests {
    static let goodIdentifier: BundleID = "org.example.good"

    static func check(_ problem: BundleProblem, against malformed: MalformedBundle, in fixture: BundleFixture) {
        let expected = malformed.expectation
        #expect(problem.path == malformed.expectedPath(in: fixture), "\(malformed)")
        #expect(problem.key == expected.key, "\(malformed)")
        #expect(problem.reason.contains(expected.reason), "\(malformed): \(problem.reason)")
    }

    @Test func casesAreDistinct() {
        let expectations = MalformedBundle.allCases.map { "\($0.expectation.key): \($0.expectation.reason)" }
        #expect(MalformedBundle.allCases.count >= 22)
        #expect(Set(MalformedBundle.allCases.map(\.bundleName)).count == MalformedBundle.allCases.count)
        // Only the two unparseable byte patterns share a reason; everything else is told apart.
        #expect(Set(expectations).count == expectations.count - 1)
    }

    @Test(arguments: MalformedBundle.allCases)
    func refusedAloneWhileAGoodBundleBesideItLoads(_ malformed: MalformedBundle) throws {
        try withScratchDirectory { fixture in
            try malformed.make(in: fixture)
            let good = try fixture.makeGoodBundle("Good.bundle", identifier: Self.goodIdentifier.rawValue)

            let (catalog, unreadable) = BundleScanner().scan(directories: [fixture.directory])

            #expect(unreadable.isEmpty)
            #expect(catalog.loaded.keys.sorted() == [Self.goodIdentifier])
            #expect(catalog.loaded[Self.goodIdentifier]?.path == good)
            let problem = try #require(catalog.refused.only, "\(catalog.refused)")
            Self.check(problem, against: malformed, in: fixture)

            let direct = BundleScanner().validate(bundleAt: fixture.path(malformed.bundleName))
            #expect(direct == .failure(problem), "validating alone says the same as the scan")
        }
    }

    @Test func allRefusedInOneScanWhileTheGoodOnesLoad() throws {
        try withScratchDirectory { fixture in
            for malformed in MalformedBundle.allCases {
                try malformed.make(in: fixture)
            }
            let good = try fixture.makeGoodBundle("Good.bundle", identifier: Self.goodIdentifier.rawValue)
            let firstTwin = try fixture.makeGoodBundle("Twin-A.bundle", identifier: "org.example.twin")
            let secondTwin = try fixture.makeGoodBundle("Twin-B.bundle", identifier: "org.example.twin")

            let (catalog, unreadable) = BundleScanner().scan(directories: [fixture.directory])

            #expect(unreadable.isEmpty)
            #expect(catalog.loaded.mapValues(\.path) == [Self.goodIdentifier: good, "org.example.twin": firstTwin])
            #expect(catalog.refused.count == MalformedBundle.allCases.count + 1)
            for malformed in MalformedBundle.allCases {
                let path = malformed.expectedPath(in: fixture)
                let matching = catalog.refused.filter { $0.path == path }
                let problem = try #require(matching.only, "\(malformed): \(matching)")
                Self.check(problem, against: malformed, in: fixture)
            }
            let duplicate = try #require(catalog.refused.first { $0.path == secondTwin })
            #expect(duplicate.key == "CFBundleIdentifier")
            #expect(duplicate.reason.contains(firstTwin))

            let refusedBundles = catalog.refused.map { Self.bundleName(in: $0.path, under: fixture.directory) }
            #expect(refusedBundles == refusedBundles.sorted(), "refusals come in sorted scan order")
        }
    }

    /// The `NAME.bundle` component of a reported path.
    static func bundleName(in path: String, under directory: String) -> String {
        String(path.dropFirst(directory.count + 1).split(separator: "/")[0])
    }
}
