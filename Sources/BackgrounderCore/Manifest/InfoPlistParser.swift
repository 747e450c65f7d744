import Foundation

/// Turns `Info.plist` bytes (XML or binary property list) into an ``AppManifest``,
/// refusing with the key and the reason when a key is missing, mistyped or meaningless.
enum InfoPlistParser {
    static func parse(_ data: Data, path: String, warnings: inout [BundleProblem]) throws(BundleProblem) -> AppManifest
    {
        if let reason = PropertyListLimits.problem(with: data) {
            throw BundleProblem(path: path, key: "Info.plist", reason: reason)
        }
        let raw: RawInfoPlist
        do {
            raw = try PropertyListDecoder().decode(RawInfoPlist.self, from: data)
        } catch let error as KeyTypeMismatch {
            throw BundleProblem(path: path, key: error.key.rawValue, reason: "must be \(error.expected)")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw BundleProblem(path: path, key: "Info.plist", reason: "the top level is not a dictionary")
        } catch {
            throw BundleProblem(path: path, key: "Info.plist", reason: "not a valid property list (XML or binary)")
        }

        func required(_ value: String?, _ key: InfoPlistKey) throws(BundleProblem) -> String {
            guard let value else {
                throw BundleProblem(path: path, key: key.rawValue, reason: "required key is missing")
            }
            guard !value.allSatisfy(\.isWhitespace) else {
                throw BundleProblem(path: path, key: key.rawValue, reason: "must not be empty")
            }
            return value
        }

        let identifier = try required(raw.bundleIdentifier, .bundleIdentifier)
        if let reason = BundleIdentifierRules.problem(with: identifier) {
            throw BundleProblem(path: path, key: InfoPlistKey.bundleIdentifier.rawValue, reason: reason)
        }
        let name = try required(raw.bundleName, .bundleName)
        let executable = try required(raw.bundleExecutable, .bundleExecutable)

        var modes: Set<BackgroundMode> = []
        var modesWithoutLinuxMeaning: [String] = []
        for entry in raw.backgroundModes ?? [] {
            if let mode = BackgroundMode(rawValue: entry) {
                modes.insert(mode)
            } else if BackgroundMode.withoutLinuxMeaning.contains(entry) {
                modesWithoutLinuxMeaning.append(entry)
                warnings.append(
                    BundleProblem(
                        path: path,
                        key: InfoPlistKey.backgroundModes.rawValue,
                        reason: "'\(entry)' has no meaning on Linux and grants nothing"
                    )
                )
            } else {
                let known = BackgroundMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw BundleProblem(
                    path: path,
                    key: InfoPlistKey.backgroundModes.rawValue,
                    reason: "unknown mode '\(entry)' (known: \(known))"
                )
            }
        }

        let taskIdentifiers = raw.permittedTaskIdentifiers ?? []
        if taskIdentifiers.contains(where: { $0.allSatisfy(\.isWhitespace) }) {
            throw BundleProblem(
                path: path,
                key: InfoPlistKey.permittedTaskIdentifiers.rawValue,
                reason: "must not contain an empty identifier"
            )
        }
        if modes.contains(.processing) && taskIdentifiers.isEmpty {
            warnings.append(
                BundleProblem(
                    path: path,
                    key: InfoPlistKey.permittedTaskIdentifiers.rawValue,
                    reason: "the processing mode is declared but no task identifier is permitted"
                )
            )
        }

        let usage = UsageDescriptions(
            locationAlwaysAndWhenInUse: raw.locationAlwaysAndWhenInUseUsage,
            locationWhenInUse: raw.locationWhenInUseUsage,
            microphone: raw.microphoneUsage,
            mediaLibrary: raw.mediaLibraryUsage
        )
        let descriptions: [(InfoPlistKey, String?)] = [
            (.locationAlwaysAndWhenInUseUsage, usage.locationAlwaysAndWhenInUse),
            (.locationWhenInUseUsage, usage.locationWhenInUse),
            (.microphoneUsage, usage.microphone),
            (.mediaLibraryUsage, usage.mediaLibrary),
        ]
        for case (let key, let text?) in descriptions where text.allSatisfy(\.isWhitespace) {
            throw BundleProblem(path: path, key: key.rawValue, reason: "must say why the app asks, not be empty")
        }
        if modes.contains(.location) && usage.locationAlwaysAndWhenInUse == nil {
            throw BundleProblem(
                path: path,
                key: InfoPlistKey.locationAlwaysAndWhenInUseUsage.rawValue,
                reason: "required by the location background mode"
            )
        }

        let kind: BundleKind
        switch raw.packageType {
        case nil, "APPL": kind = .application
        case "BNDL": kind = .policy
        case let other?:
            throw BundleProblem(
                path: path,
                key: InfoPlistKey.packageType.rawValue,
                reason: "'\(other)' is neither APPL (an app) nor BNDL (a policy plug-in)"
            )
        }
        if kind == .policy {
            guard let entry = raw.policyEntryPoint, Self.isCSymbol(entry) else {
                throw BundleProblem(
                    path: path,
                    key: InfoPlistKey.policyEntryPoint.rawValue,
                    reason: "a policy plug-in must name its C entry point (letters, digits and '_')"
                )
            }
            if let entry = raw.policySchedulingEntryPoint, !Self.isCSymbol(entry) {
                throw BundleProblem(
                    path: path,
                    key: InfoPlistKey.policySchedulingEntryPoint.rawValue,
                    reason: "must name a C function (letters, digits and '_'), or be left out"
                )
            }
        }

        var manifest = AppManifest(
            bundleIdentifier: BundleID(identifier),
            name: name,
            executable: executable,
            backgroundModes: modes,
            modesWithoutLinuxMeaning: modesWithoutLinuxMeaning,
            exitsOnSuspend: raw.exitsOnSuspend ?? false,
            permittedTaskIdentifiers: taskIdentifiers,
            usageDescriptions: usage
        )
        manifest.kind = kind
        manifest.allowsJIT = raw.allowsJIT ?? false
        manifest.policyEntryPoint = kind == .policy ? raw.policyEntryPoint : nil
        manifest.policySchedulingEntryPoint = kind == .policy ? raw.policySchedulingEntryPoint : nil
        return manifest
    }

    private static func isCSymbol(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}

/// The keys of an `Info.plist` as found, each optional, so the parser can say which is missing.
private struct RawInfoPlist: Decodable {
    var bundleIdentifier: String?
    var bundleName: String?
    var bundleExecutable: String?
    var backgroundModes: [String]?
    var exitsOnSuspend: Bool?
    var allowsJIT: Bool?
    var permittedTaskIdentifiers: [String]?
    var locationAlwaysAndWhenInUseUsage: String?
    var locationWhenInUseUsage: String?
    var microphoneUsage: String?
    var mediaLibraryUsage: String?
    var packageType: String?
    var policyEntryPoint: String?
    var policySchedulingEntryPoint: String?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: InfoPlistKey.self)
        func field<T: Decodable>(_ type: T.Type, _ key: InfoPlistKey, _ expected: String) throws -> T? {
            do {
                return try container.decodeIfPresent(type, forKey: key)
            } catch DecodingError.typeMismatch, DecodingError.dataCorrupted, DecodingError.valueNotFound {
                throw KeyTypeMismatch(key: key, expected: expected)
            }
        }
        bundleIdentifier = try field(String.self, .bundleIdentifier, "a string")
        bundleName = try field(String.self, .bundleName, "a string")
        bundleExecutable = try field(String.self, .bundleExecutable, "a string")
        backgroundModes = try field([String].self, .backgroundModes, "an array of strings")
        exitsOnSuspend = try field(Bool.self, .exitsOnSuspend, "a boolean (<true/> or <false/>)")
        allowsJIT = try field(Bool.self, .allowsJIT, "a boolean (<true/> or <false/>)")
        permittedTaskIdentifiers = try field([String].self, .permittedTaskIdentifiers, "an array of strings")
        locationAlwaysAndWhenInUseUsage = try field(String.self, .locationAlwaysAndWhenInUseUsage, "a string")
        locationWhenInUseUsage = try field(String.self, .locationWhenInUseUsage, "a string")
        microphoneUsage = try field(String.self, .microphoneUsage, "a string")
        mediaLibraryUsage = try field(String.self, .mediaLibraryUsage, "a string")
        packageType = try field(String.self, .packageType, "a string")
        policyEntryPoint = try field(String.self, .policyEntryPoint, "a string")
        policySchedulingEntryPoint = try field(String.self, .policySchedulingEntryPoint, "a string")
    }
}

private struct KeyTypeMismatch: Error {
    var key: InfoPlistKey
    var expected: String
}
