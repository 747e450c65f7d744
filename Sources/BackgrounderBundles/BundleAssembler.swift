public import BackgrounderCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Assembles `Name.bundle` from a built executable and the `Info.plist` kept beside its
/// sources, then validates the result with the same rules the daemon applies.
public struct BundleAssembler: Sendable {
    /// The scanner whose validator judges the assembled bundle.
    public var scanner: BundleScanner

    /// Creates an assembler.
    public init(scanner: BundleScanner = BundleScanner()) {
        self.scanner = scanner
    }

    /// Writes `outputDirectory/name.bundle`, replacing an older one only when the new one is valid.
    /// - Parameters:
    ///   - name: The bundle's base name (the product name).
    ///   - executable: The built executable.
    ///   - infoPlist: The manifest to ship.
    ///   - outputDirectory: Where bundles go (created if needed).
    /// - Returns: The validated bundle at its final path.
    /// - Throws: ``BundleProblem`` when the manifest or the assembled bundle is refused, or a
    ///   file-system error when copying fails.
    @discardableResult
    public func assemble(
        name: String,
        executable: String,
        infoPlist: String,
        outputDirectory: String
    ) throws -> ValidatedBundle {
        let fileManager = FileManager.default
        let finalPath = outputDirectory + "/" + name + ".bundle"
        let stagingPath = outputDirectory + "/." + name + ".bundle.staging"
        try fileManager.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        try? fileManager.removeItem(atPath: stagingPath)
        try fileManager.createDirectory(atPath: stagingPath, withIntermediateDirectories: false)
        defer { try? fileManager.removeItem(atPath: stagingPath) }

        let plistData = try Data(contentsOf: URL(fileURLWithPath: infoPlist))
        // Everything about the manifest is checked before a file is written, so a hostile
        // CFBundleExecutable cannot place the copy outside the bundle.
        let executableName = try ManifestValidator.manifest(fromInfoPlist: plistData, path: infoPlist).manifest
            .executable
        let executableTarget = stagingPath + "/" + executableName
        try fileManager.createDirectory(
            atPath: (executableTarget as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        try Self.copyExecutable(from: executable, to: executableTarget)
        try plistData.write(to: URL(fileURLWithPath: stagingPath + "/Info.plist"))
        // StrictModes: nothing in a bundle may be writable by group or others.
        try fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: stagingPath)
        try fileManager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: executableTarget)
        try fileManager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: stagingPath + "/Info.plist")

        var validated = try scanner.validate(bundleAt: stagingPath).mapError { problem in
            BundleProblem(
                path: problem.path.replacingOccurrences(of: stagingPath + "/Info.plist", with: infoPlist)
                    .replacingOccurrences(of: stagingPath, with: finalPath),
                key: problem.key,
                reason: problem.reason
            )
        }.get()
        if fileManager.fileExists(atPath: finalPath) {
            try fileManager.removeItem(atPath: finalPath)
        }
        try fileManager.moveItem(atPath: stagingPath, toPath: finalPath)
        validated.path = finalPath
        return validated
    }

    /// Copies the executable through a close-on-exec descriptor: a write descriptor that
    /// leaked into a concurrently spawned child would keep the copy "busy" (ETXTBSY) for as
    /// long as that child lives, and the bundle could not be launched.
    private static func copyExecutable(from source: String, to destination: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let descriptor = open(destination, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard descriptor >= 0 else {
            throw BundleProblem(
                path: destination, key: "bundle", reason: "cannot write: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    throw BundleProblem(
                        path: destination, key: "bundle", reason: "cannot write: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }
}
