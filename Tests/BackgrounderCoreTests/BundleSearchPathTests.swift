import BackgrounderCore
import Testing

@Suite("The default bundle directories (XDG)", .timeLimit(.minutes(5)))
struct BundleSearchPathTests {
    static func directories(_ environment: [String: String], home: String = "/home/ana") -> [String] {
        BundleSearchPath.directories(environment: environment, home: home)
    }

    @Test func nothingSetMeansTheUsersDataThenLocalThenTheSystems() {
        #expect(
            Self.directories([:]) == [
                "/home/ana/.local/share/backgrounder/bundles",
                "/usr/local/share/backgrounder/bundles",
                "/usr/share/backgrounder/bundles",
            ])
    }

    @Test func dataHomeComesFirstAndDataDirsFollowInTheirOrder() {
        let environment = ["XDG_DATA_HOME": "/data/ana", "XDG_DATA_DIRS": "/opt/share:/usr/share:/srv/share"]
        #expect(
            Self.directories(environment) == [
                "/data/ana/backgrounder/bundles",
                "/opt/share/backgrounder/bundles",
                "/usr/share/backgrounder/bundles",
                "/srv/share/backgrounder/bundles",
            ])
    }

    @Test("relative and empty entries are ignored, as the specification asks")
    func relativeAndEmptyEntriesAreIgnored() {
        let environment = ["XDG_DATA_HOME": "data", "XDG_DATA_DIRS": "::share:/opt/share/:"]
        #expect(
            Self.directories(environment) == [
                "/home/ana/.local/share/backgrounder/bundles",
                "/opt/share/backgrounder/bundles",
            ])
    }

    @Test func emptyOrOnlyRelativeDataDirsMeanTheDefault() {
        for value in ["", "relative:other"] {
            #expect(
                Self.directories(["XDG_DATA_DIRS": value]).dropFirst() == [
                    "/usr/local/share/backgrounder/bundles", "/usr/share/backgrounder/bundles",
                ])
        }
    }

    @Test("a directory named twice is searched once, where it first appears")
    func duplicatesKeepTheirFirstPlace() {
        let environment = ["XDG_DATA_HOME": "/usr/share/", "XDG_DATA_DIRS": "/opt/share:/usr/share:/opt/share"]
        #expect(
            Self.directories(environment) == [
                "/usr/share/backgrounder/bundles", "/opt/share/backgrounder/bundles",
            ])
    }

    @Test func aRootOrMissingHomeStillGivesAbsolutePaths() {
        #expect(Self.directories([:], home: "/").first == "/.local/share/backgrounder/bundles")
        #expect(
            Self.directories([:], home: "") == [
                "/usr/local/share/backgrounder/bundles", "/usr/share/backgrounder/bundles",
            ])
        #expect(Self.directories(["XDG_DATA_DIRS": "/"]).last == "/backgrounder/bundles")
    }

    @Test func theSummaryNamesBothVariablesAndTheDefaults() {
        for word in ["$XDG_DATA_HOME", "$XDG_DATA_DIRS", "~/.local/share", "/usr/local/share:/usr/share"] {
            #expect(BundleSearchPath.summary.contains(word))
        }
    }
}
