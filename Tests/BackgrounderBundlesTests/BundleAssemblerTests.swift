import BackgrounderBundles
import BackgrounderCore
import Foundation
import Testing

@Suite("BundleAssembler", .timeLimit(.minutes(5)))
struct BundleAssemblerTests {
    /// A built executable and the `Info.plist` beside its sources, as the plugin finds them.
    struct Inputs {
        var executable: String
        var infoPlist: String
        var output: String
    }

    static func makeInputs(in fixture: BundleFixture, plist: Data) throws -> Inputs {
        try fixture.makeDirectory(fixture.path("build"))
        try fixture.makeDirectory(fixture.path("Sources"))
        let inputs = Inputs(
            executable: fixture.path("build/runner-binary"),
            infoPlist: fixture.path("Sources/Info.plist"),
            output: fixture.path("Bundles")
        )
        // Modes the assembler must correct, whatever the umask left.
        try fixture.write(BundleFixture.script + Data("# built\n".utf8), to: inputs.executable, mode: 0o700)
        try fixture.write(plist, to: inputs.infoPlist, mode: 0o666)
        return inputs
    }

    static let plist = InfoPlistText.valid(identifier: "org.example.runner")
        .setting("CFBundleName", .string("Runner"))
        .setting("CFBundleExecutable", .string("RunnerTool"))

    @discardableResult
    static func assemble(_ inputs: Inputs) throws -> ValidatedBundle {
        try BundleAssembler().assemble(
            name: "Runner",
            executable: inputs.executable,
            infoPlist: inputs.infoPlist,
            outputDirectory: inputs.output
        )
    }

    @Test func writesTheBundleWithStrictModes() throws {
        try withScratchDirectory { fixture in
            let inputs = try Self.makeInputs(in: fixture, plist: Self.plist.data)

            let bundle = try Self.assemble(inputs)

            let path = inputs.output + "/Runner.bundle"
            #expect(bundle.path == path)
            #expect(bundle.executablePath == path + "/RunnerTool")
            #expect(bundle.manifest.bundleIdentifier == "org.example.runner")
            #expect(try fixture.listing(inputs.output) == ["Runner.bundle"])
            #expect(try fixture.listing(path) == ["Info.plist", "RunnerTool"])
            #expect(fixture.mode(of: path) == 0o755)
            #expect(fixture.mode(of: path + "/Info.plist") == 0o644)
            #expect(fixture.mode(of: path + "/RunnerTool") == 0o755)
            let files = FileManager.default
            #expect(files.contents(atPath: path + "/RunnerTool") == files.contents(atPath: inputs.executable))
            #expect(files.contents(atPath: path + "/Info.plist") == Self.plist.data)
            let rescanned = BundleScanner().scan(directories: [inputs.output]).catalog
            #expect(rescanned.loaded.keys.sorted() == ["org.example.runner"])
        }
    }

    @Test func executableMayLiveInASubdirectory() throws {
        try withScratchDirectory { fixture in
            let plist = Self.plist.setting("CFBundleExecutable", .string("bin/RunnerTool"))
            let inputs = try Self.makeInputs(in: fixture, plist: plist.data)

            let bundle = try Self.assemble(inputs)

            #expect(bundle.executablePath == inputs.output + "/Runner.bundle/bin/RunnerTool")
            #expect(fixture.mode(of: bundle.executablePath) == 0o755)
        }
    }

    @Test func replacesAnOlderBundle() throws {
        try withScratchDirectory { fixture in
            let inputs = try Self.makeInputs(in: fixture, plist: Self.plist.data)
            try Self.assemble(inputs)
            let old = inputs.output + "/Runner.bundle"
            try fixture.write(Data("left over".utf8), to: old + "/Stale", mode: 0o644)
            let newer = Self.plist.setting("UIBackgroundModes", .strings(["fetch"]))
            try fixture.write(newer.data, to: inputs.infoPlist, mode: 0o644)

            let bundle = try Self.assemble(inputs)

            #expect(bundle.manifest.backgroundModes == [.fetch])
            #expect(try fixture.listing(old) == ["Info.plist", "RunnerTool"])
            #expect(try fixture.listing(inputs.output) == ["Runner.bundle"])
        }
    }

    /// A refused manifest, what the refusal must say, and which reason words prove it.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var label: String
        var plist: InfoPlistText?
        var bytes: String?
        var key: String
        var reason: String
        var testDescription: String { label }

        var data: Data { plist?.data ?? Data((bytes ?? "").utf8) }
    }

    static let refusals: [Refusal] = [
        Refusal(
            label: "unknown mode",
            plist: plist.setting("UIBackgroundModes", .strings(["teleport"])),
            key: "UIBackgroundModes",
            reason: "unknown mode 'teleport'"
        ),
        Refusal(
            label: "no CFBundleExecutable",
            plist: plist.removing("CFBundleExecutable"),
            key: "CFBundleExecutable",
            reason: "required key is missing"
        ),
        Refusal(label: "not a plist", bytes: "hello world", key: "Info.plist", reason: "not a valid property list"),
        Refusal(
            label: "absolute executable",
            plist: plist.setting("CFBundleExecutable", .string("/RunnerTool")),
            key: "CFBundleExecutable",
            reason: "not absolute"
        ),
        Refusal(
            label: "location without usage description",
            plist: plist.setting("UIBackgroundModes", .strings(["location"])),
            key: "NSLocationAlwaysAndWhenInUseUsageDescription",
            reason: "location background mode"
        ),
    ]

    @Test(arguments: refusals)
    func refusalNamesTheSourceAndLeavesTheOldBundleAlone(_ refusal: Refusal) throws {
        try withScratchDirectory { fixture in
            let inputs = try Self.makeInputs(in: fixture, plist: Self.plist.data)
            try Self.assemble(inputs)
            let old = inputs.output + "/Runner.bundle"
            let oldPlist = FileManager.default.contents(atPath: old + "/Info.plist")
            try fixture.write(refusal.data, to: inputs.infoPlist, mode: 0o644)

            let problem = try #require(#expect(throws: BundleProblem.self) { try Self.assemble(inputs) })

            #expect(problem.path == inputs.infoPlist)
            #expect(problem.key == refusal.key)
            #expect(problem.reason.contains(refusal.reason))
            #expect(try fixture.listing(inputs.output) == ["Runner.bundle"], "no staging directory is left")
            #expect(try fixture.listing(old) == ["Info.plist", "RunnerTool"])
            #expect(FileManager.default.contents(atPath: old + "/Info.plist") == oldPlist)
        }
    }

    @Test func refusalWithNoEarlierBundleLeavesNothing() throws {
        try withScratchDirectory { fixture in
            let plist = Self.plist.setting("UIApplicationExitsOnSuspend", .string("YES"))
            let inputs = try Self.makeInputs(in: fixture, plist: plist.data)

            let problem = try #require(#expect(throws: BundleProblem.self) { try Self.assemble(inputs) })

            #expect(problem.path == inputs.infoPlist)
            #expect(problem.key == "UIApplicationExitsOnSuspend")
            #expect(try fixture.listing(inputs.output).isEmpty)
        }
    }

    /// `CFBundleExecutable` is used as a path before it is validated, so `..` must not let the
    /// copy land outside the bundle being assembled.
    @Test func dotDotExecutableIsRefusedWithoutWritingOutsideTheBundle() throws {
        try withScratchDirectory { fixture in
            let plist = Self.plist.setting("CFBundleExecutable", .string("../Escaped"))
            let inputs = try Self.makeInputs(in: fixture, plist: plist.data)

            let problem = try #require(#expect(throws: BundleProblem.self) { try Self.assemble(inputs) })

            #expect(problem.path == inputs.infoPlist)
            #expect(problem.key == "CFBundleExecutable")
            #expect(problem.reason.contains("'..' would leave the bundle"))
            let written = try fixture.listing(inputs.output)
            #expect(written.isEmpty, "written beside the bundles: \(written)")
        }
    }

    /// The copy fails for a name that is a directory; the refusal must not name the staging
    /// directory, which is gone by the time anyone reads the message.
    @Test(arguments: [".", "bin/."])
    func executableNamingADirectoryIsRefusedWithoutNamingTheStagingDirectory(executable: String) throws {
        try withScratchDirectory { fixture in
            let plist = Self.plist.setting("CFBundleExecutable", .string(executable))
            let inputs = try Self.makeInputs(in: fixture, plist: plist.data)

            let problem = try #require(#expect(throws: BundleProblem.self) { try Self.assemble(inputs) })

            #expect(!problem.path.contains(".staging"), "\(problem)")
            #expect(problem.key == "CFBundleExecutable")
            #expect(try fixture.listing(inputs.output).isEmpty)
        }
    }
}
