public import Foundation

/// Decides whether a bundle directory is a loadable app bundle.
///
/// The checks follow the order a person would fix things in: the directory, the
/// `Info.plist` file, its keys, then the executable it names. The first failure refuses the
/// bundle with one ``BundleProblem``; keys iOS knows but Linux cannot honour become warnings.
public struct ManifestValidator: Sendable {
    /// The largest `Info.plist` accepted, in bytes. Real ones are a few kilobytes.
    public var maximumInfoPlistSize: Int
    /// Users who may own a bundle (sshd's StrictModes allows root and the user itself).
    public var trustedOwners: Set<UInt32>

    /// Creates a validator.
    /// - Parameters:
    ///   - trustedOwners: User ids that may own bundle files; typically root and the daemon's user.
    ///   - maximumInfoPlistSize: The largest `Info.plist` accepted, in bytes.
    public init(trustedOwners: Set<UInt32>, maximumInfoPlistSize: Int = 256 * 1024) {
        self.trustedOwners = trustedOwners
        self.maximumInfoPlistSize = maximumInfoPlistSize
    }

    /// Validates one bundle.
    /// - Parameter source: The bundle's files.
    /// - Returns: The manifest and any warnings.
    /// - Throws: ``BundleProblem`` naming the path, key and reason of the first refusal.
    public func validate(_ source: some BundleFileSource) throws(BundleProblem) -> ValidatedBundle {
        let bundlePath = source.bundlePath
        let plistPath = bundlePath + "/Info.plist"

        try checkDirectory(source)
        let data = try readInfoPlist(source, plistPath: plistPath)
        var warnings: [BundleProblem] = []
        let manifest = try InfoPlistParser.parse(data, path: plistPath, warnings: &warnings)
        try checkExecutable(manifest.executable, in: source, plistPath: plistPath)
        return ValidatedBundle(path: bundlePath, manifest: manifest, warnings: warnings)
    }

    private func checkDirectory(_ source: some BundleFileSource) throws(BundleProblem) {
        let path = source.bundlePath
        guard let facts = source.facts(of: "") else {
            throw BundleProblem(path: path, key: "bundle", reason: "no such directory")
        }
        guard facts.kind == .directory else {
            throw BundleProblem(path: path, key: "bundle", reason: "not a directory")
        }
        try checkOwnership(facts, path: path, key: "bundle")
    }

    private func checkOwnership(_ facts: FileFacts, path: String, key: String) throws(BundleProblem) {
        if facts.isWritableByGroupOrOthers {
            let mode = String(facts.permissions, radix: 8)
            throw BundleProblem(
                path: path,
                key: key,
                reason: "writable by group or others (mode \(mode)); run chmod go-w on it"
            )
        }
        if !trustedOwners.contains(facts.owner) {
            throw BundleProblem(
                path: path,
                key: key,
                reason: "owned by uid \(facts.owner), not by root or the daemon's user"
            )
        }
    }

    private func readInfoPlist(_ source: some BundleFileSource, plistPath: String) throws(BundleProblem) -> Data {
        guard let facts = source.facts(of: "Info.plist") else {
            throw BundleProblem(path: plistPath, key: "Info.plist", reason: "missing")
        }
        guard facts.kind == .regular else {
            throw BundleProblem(path: plistPath, key: "Info.plist", reason: "not a regular file")
        }
        try checkOwnership(facts, path: plistPath, key: "Info.plist")
        guard facts.size > 0 else {
            throw BundleProblem(path: plistPath, key: "Info.plist", reason: "empty file")
        }
        guard facts.size <= maximumInfoPlistSize else {
            throw BundleProblem(
                path: plistPath,
                key: "Info.plist",
                reason: "\(facts.size) bytes, over the \(maximumInfoPlistSize)-byte limit"
            )
        }
        do {
            return try source.contents(of: "Info.plist", limit: maximumInfoPlistSize)
        } catch {
            throw BundleProblem(path: plistPath, key: "Info.plist", reason: "unreadable: \(error)")
        }
    }

    /// Parses and checks `Info.plist` bytes alone, without looking at any other file.
    /// - Parameters:
    ///   - data: The property list (XML or binary).
    ///   - path: The file's path, for messages.
    /// - Returns: The manifest and any warnings.
    /// - Throws: ``BundleProblem`` naming the key and the reason.
    public static func manifest(
        fromInfoPlist data: Data,
        path: String
    ) throws(BundleProblem) -> (manifest: AppManifest, warnings: [BundleProblem]) {
        var warnings: [BundleProblem] = []
        let manifest = try InfoPlistParser.parse(data, path: path, warnings: &warnings)
        if let reason = executablePathProblem(manifest.executable) {
            throw BundleProblem(path: path, key: InfoPlistKey.bundleExecutable.rawValue, reason: reason)
        }
        return (manifest, warnings)
    }

    /// Why a `CFBundleExecutable` value cannot name a file inside the bundle, before any
    /// file is looked at (the bundle assembler checks this before it copies anything).
    /// - Parameter executable: The value.
    /// - Returns: The reason, or `nil` when it is a relative path that stays inside.
    public static func executablePathProblem(_ executable: String) -> String? {
        if executable.hasPrefix("/") {
            return "must be a path inside the bundle, not absolute"
        }
        let components = executable.split(separator: "/", omittingEmptySubsequences: false)
        if components.contains("..") {
            return "'..' would leave the bundle"
        }
        if components.contains(where: { $0.isEmpty || $0 == "." }) {
            return "'\(executable)' must name a file, with no empty or '.' path components"
        }
        return nil
    }

    private func checkExecutable(
        _ executable: String,
        in source: some BundleFileSource,
        plistPath: String
    ) throws(BundleProblem) {
        let key = InfoPlistKey.bundleExecutable.rawValue
        let executablePath = source.bundlePath + "/" + executable
        if let reason = Self.executablePathProblem(executable) {
            throw BundleProblem(path: plistPath, key: key, reason: reason)
        }
        guard source.facts(of: executable) != nil else {
            throw BundleProblem(path: executablePath, key: key, reason: "executable missing")
        }
        guard let bundleRoot = source.canonicalPath(of: ""),
            let resolved = source.canonicalPath(of: executable),
            let facts = source.resolvedFacts(of: executable)
        else {
            throw BundleProblem(path: executablePath, key: key, reason: "symbolic link points nowhere")
        }
        guard resolved.hasPrefix(bundleRoot + "/") else {
            throw BundleProblem(
                path: executablePath,
                key: key,
                reason: "resolves to \(resolved), outside the bundle"
            )
        }
        guard facts.kind == .regular else {
            throw BundleProblem(path: executablePath, key: key, reason: "not a regular file")
        }
        guard facts.isExecutable else {
            throw BundleProblem(path: executablePath, key: key, reason: "not executable (no x permission)")
        }
        if facts.permissions & 0o6000 != 0 {
            throw BundleProblem(
                path: executablePath, key: key, reason: "set-user-ID or set-group-ID executables are refused")
        }
        try checkOwnership(facts, path: executablePath, key: key)
        // As sshd's StrictModes: every directory between the bundle and the executable must
        // be as safe as the bundle, or anyone could swap the file underneath.
        var directory = ""
        for component in executable.split(separator: "/").dropLast() {
            directory += directory.isEmpty ? String(component) : "/" + component
            guard let directoryFacts = source.resolvedFacts(of: directory) else { continue }
            try checkOwnership(directoryFacts, path: source.bundlePath + "/" + directory, key: key)
        }
    }
}

/// A bundle that passed validation.
public struct ValidatedBundle: Sendable, Hashable {
    /// The bundle directory.
    public var path: String
    /// What its `Info.plist` declares.
    public var manifest: AppManifest
    /// Things worth telling the author that do not refuse the bundle.
    public var warnings: [BundleProblem]

    /// Creates a validated bundle.
    public init(path: String, manifest: AppManifest, warnings: [BundleProblem] = []) {
        self.path = path
        self.manifest = manifest
        self.warnings = warnings
    }

    /// The absolute path of the executable.
    public var executablePath: String { path + "/" + manifest.executable }
}
