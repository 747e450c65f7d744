import BackgrounderBundles
import BackgrounderCore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("BundleScanner", .timeLimit(.minutes(5)))
struct BundleScannerTests {
    @Test func goodBundleLoadsWithEveryKey() throws {
        try withScratchDirectory { fixture in
            let plist = InfoPlistText.valid(identifier: "org.example.walker")
                .setting("CFBundleName", .string("Walker"))
                .setting("UIBackgroundModes", .strings(["location", "bluetooth-central"]))
                .setting("NSLocationAlwaysAndWhenInUseUsageDescription", .string("Records walks."))
                .setting("UIApplicationExitsOnSuspend", .bool(true))
            let path = try fixture.makeBundle("Walker.bundle", plist: plist.data)

            let bundle = try BundleScanner().validate(bundleAt: path).get()

            #expect(bundle.path == path)
            #expect(bundle.executablePath == path + "/Tool")
            #expect(bundle.manifest.name == "Walker")
            #expect(bundle.manifest.backgroundModes == [.location])
            #expect(bundle.manifest.modesWithoutLinuxMeaning == ["bluetooth-central"])
            #expect(bundle.manifest.exitsOnSuspend)
            #expect(bundle.warnings.map(\.path) == [path + "/Info.plist"])
            #expect(bundle.warnings.map(\.key) == ["UIBackgroundModes"])
        }
    }

    @Test func binaryInfoPlistLoads() throws {
        try withScratchDirectory { fixture in
            let dictionary = [
                "CFBundleIdentifier": "org.example.binary", "CFBundleName": "B", "CFBundleExecutable": "Tool",
            ]
            let data = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
            let path = try fixture.makeBundle("Binary.bundle", plist: data)

            let manifest = try BundleScanner().validate(bundleAt: path).get().manifest

            #expect(manifest.bundleIdentifier == "org.example.binary")
        }
    }

    @Test(arguments: [false, true])
    func linkToAnExecutableInsideTheBundleIsAccepted(absolute: Bool) throws {
        try withScratchDirectory { fixture in
            let plist = InfoPlistText.valid(identifier: "org.example.linked").data
            let path = try fixture.makeBundle("Linked.bundle", plist: plist, executable: nil)
            try fixture.makeDirectory(path + "/bin")
            try fixture.write(BundleFixture.script, to: path + "/bin/real-tool", mode: 0o755)
            try fixture.makeSymbolicLink(path + "/Tool", to: absolute ? path + "/bin/real-tool" : "bin/real-tool")

            let bundle = try BundleScanner().validate(bundleAt: path).get()

            #expect(bundle.executablePath == path + "/Tool")
        }
    }

    @Test func trailingSlashNamesTheSameBundle() throws {
        try withScratchDirectory { fixture in
            let path = try fixture.makeGoodBundle("Slash.bundle", identifier: "org.example.slash")

            #expect(try BundleScanner().validate(bundleAt: path + "//").get().path == path)
        }
    }

    /// Not loaded, and not refused, but each directory is reported so a person sees why (a
    /// hidden one and plain files are left alone).
    @Test func entriesNotEndingInDotBundleAreNotLoadedButReported() throws {
        try withScratchDirectory { fixture in
            let valid = InfoPlistText.valid(identifier: "org.example.ignored").data
            for name in ["Ignored.app", "Ignored.bundle.old", "Ignored", ".bundle-ish"] {
                try fixture.makeBundle(name, plist: valid)
            }
            try fixture.write(Data("notes".utf8), to: fixture.path("README.txt"), mode: 0o644)
            let good = try fixture.makeGoodBundle("Good.bundle", identifier: "org.example.good")

            let (catalog, unreadable) = BundleScanner().scan(directories: [fixture.directory])

            #expect(unreadable.map(\.path) == ["Ignored", "Ignored.app", "Ignored.bundle.old"].map(fixture.path))
            #expect(unreadable.allSatisfy { $0.reason.contains("rename it to end in .bundle") })
            #expect(catalog.refused.isEmpty)
            #expect(catalog.sortedLoaded.map(\.path) == [good])
        }
    }

    @Test func missingBundlesDirectoryIsUnreadableNotRefused() throws {
        try withScratchDirectory { fixture in
            let missing = fixture.path("no-such-dir")
            let good = try fixture.makeGoodBundle("Good.bundle", identifier: "org.example.good")

            let (catalog, unreadable) = BundleScanner().scan(directories: [missing, fixture.directory])

            #expect(catalog.refused.isEmpty)
            #expect(catalog.sortedLoaded.map(\.path) == [good])
            let problem = try #require(unreadable.only)
            #expect(problem.path == missing)
            #expect(problem.key == "--bundles")
            #expect(problem.reason.contains("cannot list"))
        }
    }

    @Test func bundlesPathThatIsAFileIsUnreadable() throws {
        try withScratchDirectory { fixture in
            let file = fixture.path("not-a-dir")
            try fixture.write(Data("x".utf8), to: file, mode: 0o644)

            let (catalog, unreadable) = BundleScanner().scan(directories: [file])

            #expect(catalog.loaded.isEmpty && catalog.refused.isEmpty)
            #expect(unreadable.map(\.path) == [file])
        }
    }

    @Test func emptyDirectoryGivesAnEmptyCatalog() throws {
        try withScratchDirectory { fixture in
            let (catalog, unreadable) = BundleScanner().scan(directories: [fixture.directory])

            #expect(catalog == BundleCatalog())
            #expect(unreadable.isEmpty)
        }
    }

    @Test func defaultTrustedOwnersAreRootAndTheEffectiveUser() {
        #expect(BundleScanner.defaultTrustedOwners == [0, UInt32(geteuid())])
    }

    /// Root reads anything, so ownership is tested by trusting nobody who owns the files.
    @Test func bundleOwnedByAnUntrustedUserIsRefused() throws {
        try withScratchDirectory { fixture in
            let path = try fixture.makeGoodBundle("Foreign.bundle", identifier: "org.example.foreign")
            let scanner = BundleScanner(validator: ManifestValidator(trustedOwners: [4_242_424]))

            let problem = try #require(scanner.validate(bundleAt: path).failure)

            #expect(problem.path == path)
            #expect(problem.key == "bundle")
            #expect(problem.reason.contains("owned by uid \(geteuid())"))
        }
    }

    @Test func executableInASubdirectoryLoads() throws {
        try withScratchDirectory { fixture in
            let plist = InfoPlistText.valid(identifier: "org.example.nested").setting(
                "CFBundleExecutable", .string("bin/Tool"))
            let path = try fixture.makeBundle("Nested.bundle", plist: plist.data, executable: nil)
            try fixture.makeDirectory(path + "/bin", mode: 0o755)
            try fixture.write(BundleFixture.script, to: path + "/bin/Tool", mode: 0o755)

            #expect(try BundleScanner().validate(bundleAt: path).get().executablePath == path + "/bin/Tool")
        }
    }
}
