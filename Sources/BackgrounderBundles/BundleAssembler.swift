public import BackgrounderCore
import Foundation

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
        let executableName = try Self.executableName(in: plistData, path: infoPlist)
        let executableTarget = stagingPath + "/" + executableName
        try fileManager.createDirectory(
            atPath: (executableTarget as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true
        )
        try fileManager.copyItem(atPath: executable, toPath: executableTarget)
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

    /// Reads `CFBundleExecutable` so the executable can be copied under that name.
    private static func executableName(in data: Data, path: String) throws -> String {
        struct Header: Decodable {
            var CFBundleExecutable: String?
        }
        let header: Header
        do {
            header = try PropertyListDecoder().decode(Header.self, from: data)
        } catch {
            throw BundleProblem(
                path: path, key: "Info.plist", reason: "not a valid property list with a CFBundleExecutable string")
        }
        guard let name = header.CFBundleExecutable, !name.isEmpty else {
            throw BundleProblem(
                path: path, key: InfoPlistKey.bundleExecutable.rawValue, reason: "required key is missing")
        }
        return name
    }
}
