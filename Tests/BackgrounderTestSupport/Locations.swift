import Foundation

/// Where the things tests need live: the built products and the repository's fixtures.
public enum Locations {
    /// The repository root, found from this file's own path.
    public static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The directory holding the built executables (`backgrounderd`, `bgctl`, samples): the
    /// same directory as the running test binary.
    public static let productsDirectory: String = {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = executable.deletingLastPathComponent()
        // On Linux the test runner may be inside an .xctest directory.
        if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        return directory.path
    }()

    /// A built executable product.
    public static func product(_ name: String) -> String {
        productsDirectory + "/" + name
    }

    /// A GPS fixture the project generates (`scripts/make-walks.py`).
    public static func gpsFixture(_ name: String) -> String {
        repositoryRoot + "/Tests/Fixtures/gps/" + name
    }

    /// A recorded log under `../shared/data/gps`, when that directory exists beside the repository.
    public static func sharedGPSData(_ name: String) -> String? {
        let path = repositoryRoot + "/../shared/data/gps/" + name
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Whether a program is on the PATH.
    public static func hasProgram(_ name: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(name)") }
    }
}
