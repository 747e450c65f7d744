import BackgrounderCore
import Foundation
import Testing

/// The checks on the file `CFBundleExecutable` names, made after the keys are read.
@Suite("CFBundleExecutable file", .timeLimit(.minutes(5)))
struct ExecutableTests {
    static let good = InMemoryBundle(plist: .minimal)

    /// A bundle whose manifest names `executable` and which holds a script at that path.
    static func named(_ executable: String) -> InMemoryBundle {
        let plist = InfoPlistText.minimal.setting("CFBundleExecutable", .string(executable))
        return InMemoryBundle(plist: plist, executable: executable)
    }

    @Test(arguments: ["/usr/bin/true", "/apps/Test.bundle/Test"])
    func absolutePathIsRefused(executable: String) throws {
        let problem = try #require(Self.named(executable).refusal)

        #expect(problem.path == "/apps/Test.bundle/Info.plist")
        #expect(problem.key == "CFBundleExecutable")
        #expect(problem.reason.contains("not absolute"))
    }

    @Test(arguments: ["../Test", "bin/../../Test", "..", "bin/.."])
    func dotDotIsRefused(executable: String) throws {
        let problem = try #require(Self.named(executable).refusal)

        #expect(problem.path == "/apps/Test.bundle/Info.plist")
        #expect(problem.key == "CFBundleExecutable")
        #expect(problem.reason.contains("'..' would leave the bundle"))
    }

    @Test func missingExecutableIsRefused() throws {
        let problem = try #require(Self.good.replacing("Test", with: nil).refusal)

        #expect(problem.path == "/apps/Test.bundle/Test")
        #expect(problem.key == "CFBundleExecutable")
        #expect(problem.reason == "executable missing")
    }

    @Test func danglingLinkIsRefused() throws {
        let problem = try #require(Self.good.replacing("Test", with: InMemoryBundle.symbolicLink(to: nil)).refusal)

        #expect(problem.path == "/apps/Test.bundle/Test")
        #expect(problem.reason.contains("points nowhere"))
    }

    @Test(arguments: ["/usr/bin/true", "/apps/Test.bundle-evil/Test", "/apps/Test.bundle"])
    func linkOutsideTheBundleIsRefused(target: String) throws {
        let outside = InMemoryBundle.file(at: target, contents: Data("x".utf8), permissions: 0o755)
        let source = Self.good.replacing("Test", with: InMemoryBundle.symbolicLink(to: outside))

        let problem = try #require(source.refusal)

        #expect(problem.path == "/apps/Test.bundle/Test")
        #expect(problem.key == "CFBundleExecutable")
        #expect(problem.reason == "resolves to \(target), outside the bundle")
    }

    @Test func linkInsideTheBundleIsAccepted() throws {
        let real = InMemoryBundle.file(at: "/apps/Test.bundle/bin/real", contents: Data("x".utf8), permissions: 0o755)
        let source = Self.good.replacing("bin/real", with: real).replacing(
            "Test", with: InMemoryBundle.symbolicLink(to: real))

        let bundle = try source.validate().get()

        #expect(bundle.executablePath == "/apps/Test.bundle/Test")
    }

    @Test func executableInASubdirectoryIsAccepted() throws {
        let bundle = try Self.named("bin/Tool").validate().get()

        #expect(bundle.executablePath == "/apps/Test.bundle/bin/Tool")
    }

    @Test func directoryIsRefused() throws {
        let source = Self.good.replacing("Test", with: InMemoryBundle.directory(at: "/apps/Test.bundle/Test"))

        let problem = try #require(source.refusal)

        #expect(problem.path == "/apps/Test.bundle/Test")
        #expect(problem.reason == "not a regular file")
    }

    @Test(arguments: [UInt32(0o644), 0o600, 0o000])
    func fileWithoutExecutePermissionIsRefused(permissions: UInt32) throws {
        let problem = try #require(Self.good.changing("Test", permissions: permissions).refusal)

        #expect(problem.path == "/apps/Test.bundle/Test")
        #expect(problem.reason.contains("not executable"))
    }

    @Test(arguments: [UInt32(0o100), 0o010, 0o001])
    func anyExecuteBitIsEnough(permissions: UInt32) throws {
        #expect(throws: Never.self) { try Self.good.changing("Test", permissions: permissions).validate().get() }
    }

    @Test func writableExecutableIsRefused() throws {
        let problem = try #require(Self.good.changing("Test", permissions: 0o775).refusal)

        #expect(problem.path == "/apps/Test.bundle/Test")
        #expect(problem.key == "CFBundleExecutable")
        #expect(problem.reason.contains("mode 775"))
    }

    @Test func executableOwnedByAStrangerIsRefused() throws {
        let problem = try #require(Self.good.changing("Test", owner: 65534).refusal)

        #expect(problem.key == "CFBundleExecutable")
        #expect(problem.reason.contains("owned by uid 65534"))
    }
}
