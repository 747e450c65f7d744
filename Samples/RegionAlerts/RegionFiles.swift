import BackgroundKit
import Foundation
import SampleSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Where the app keeps its regions and its alerts, in its data directory.
struct RegionFiles {
    /// The bundle identifier, which names the data directory.
    static let bundleIdentifier = "org.backgrounder.samples.regionalerts"

    /// The data directory.
    let directory: String

    /// The regions to monitor (``RegionFile``), written by the command line.
    var regions: String { directory + "/regions.geojson" }
    /// The alerts raised (``AlertLog``).
    var alerts: String { directory + "/alerts.log" }

    /// The files in a data directory.
    /// - Parameter directory: The directory.
    init(directory: String) {
        self.directory = directory
    }

    /// The files the app uses, for the app itself: its `BACKGROUNDER_DATA_DIR`.
    static func forApp() -> RegionFiles {
        RegionFiles(directory: Application.dataDirectory(forBundle: bundleIdentifier))
    }

    /// The files the daemon's app uses, for the command line: in the state directory
    /// `--state-dir` names, else where the daemon it talks to (`BACKGROUNDER_SOCKET`) says.
    /// - Parameter stateDirectory: `--state-dir`, when given.
    /// - Returns: The files, or `nil` when the daemon cannot say (said on standard error).
    static func forCommandLine(stateDirectory: String?) -> RegionFiles? {
        SampleDataDirectory.find(forBundle: bundleIdentifier, stateDirectory: stateDirectory, program: "RegionAlerts")
            .map(RegionFiles.init(directory:))
    }

    /// Reads the regions file.
    /// - Returns: The file, or ``RegionFile/empty`` when there is none yet.
    /// - Throws: ``RegionFileError`` when it cannot be read or is not a regions file.
    func readRegions() throws(RegionFileError) -> RegionFile {
        guard let data = try RegionFiles.read(regions) else { return .empty }
        return try RegionFile(data: data, file: regions)
    }

    /// Reads a whole file.
    /// - Parameter path: The file.
    /// - Returns: Its bytes, or `nil` when it does not exist.
    /// - Throws: ``RegionFileError`` (``RegionFileError/Code/unreadable``) naming the system's reason.
    static func read(_ path: String) throws(RegionFileError) -> Data? {
        func unreadable(_ error: Int32) -> RegionFileError {
            RegionFileError(
                code: .unreadable, file: path, reason: "cannot read it: \(String(cString: strerror(error)))")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor == -1 {
            if errno == ENOENT { return nil }
            throw unreadable(errno)
        }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw RegionFileError(code: .invalid, file: path, reason: "is a directory, not a regions file")
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(errno)
            }
            data.append(contentsOf: chunk[0..<count])
        }
    }

    /// Replaces the regions file, atomically, creating the data directory when needed.
    /// - Parameter file: The new regions.
    /// - Throws: When the directory or the file cannot be written.
    func writeRegions(_ file: RegionFile) throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try file.data.write(to: URL(fileURLWithPath: regions), options: .atomic)
    }
}
