// Fuzz target `info-plist`: an `Info.plist` as a bundle author (anyone who can put a bundle
// in a bundles directory) writes it, XML or binary. The bytes go through what the daemon's
// bundle scan, `bgctl validate` and the bundle plugin run: `PropertyListLimits` (the depth
// and object-count guard in front of Foundation's parser), `PropertyListDecoder`, and
// `InfoPlistParser`'s checks, both by `ManifestValidator.manifest(fromInfoPlist:path:)` and
// by `validate(_:)` on an in-memory bundle that holds the executable the manifest names.
//
// A refusal is fine; a manifest that passes must be one the daemon can act on.

import BackgrounderCore
import Foundation

/// A bundle directory in memory: the directory, its `Info.plist` and one executable.
struct MemoryBundle: BundleFileSource {
    let bundlePath = "/fuzz/App.bundle"
    let infoPlist: Data
    /// The path the executable is at, relative to the bundle.
    let executable: String

    func facts(of relativePath: String) -> FileFacts? {
        switch relativePath {
        case "": FileFacts(kind: .directory, permissions: 0o755, owner: 0, size: 4096)
        case "Info.plist": FileFacts(kind: .regular, permissions: 0o644, owner: 0, size: Int64(infoPlist.count))
        case executable: FileFacts(kind: .regular, permissions: 0o755, owner: 0, size: 1)
        // The executable's directories, when it sits in a subdirectory.
        case _ where executable.hasPrefix(relativePath + "/"):
            FileFacts(kind: .directory, permissions: 0o755, owner: 0, size: 4096)
        default: nil
        }
    }

    func resolvedFacts(of relativePath: String) -> FileFacts? {
        facts(of: relativePath)
    }

    func canonicalPath(of relativePath: String) -> String? {
        guard facts(of: relativePath) != nil else { return nil }
        return relativePath.isEmpty ? bundlePath : bundlePath + "/" + relativePath
    }

    func contents(of relativePath: String, limit: Int) throws -> Data {
        guard relativePath == "Info.plist" else { throw CocoaError(.fileNoSuchFile) }
        return infoPlist.prefix(limit)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInfoPlist(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    let manifest: AppManifest
    do {
        manifest = try ManifestValidator.manifest(fromInfoPlist: data, path: "/fuzz/Info.plist").manifest
    } catch {
        precondition(!error.reason.isEmpty && !error.key.isEmpty, "a refusal without a key or reason: \(error)")
        return 0
    }
    check(manifest)

    // The daemon's way: the whole bundle validated, the executable looked up where the
    // manifest says. The same bytes must give the same manifest.
    let bundle = MemoryBundle(infoPlist: data, executable: manifest.executable)
    do {
        let validated = try ManifestValidator(trustedOwners: [0]).validate(bundle)
        precondition(validated.manifest == manifest, "validate(_:) read another manifest than manifest(fromInfoPlist:)")
        precondition(validated.executablePath.hasPrefix(bundle.bundlePath + "/"), "\(validated.executablePath)")
    } catch {
        fatalError("a manifest that parses alone is refused in its bundle: \(error)")
    }
    return 0
}

/// What the daemon relies on in a manifest that was accepted.
func check(_ manifest: AppManifest) {
    precondition(
        BundleIdentifierRules.problem(with: manifest.bundleIdentifier.rawValue) == nil, "\(manifest.bundleIdentifier)")
    precondition(!manifest.name.allSatisfy(\.isWhitespace), "an empty name was accepted")
    precondition(ManifestValidator.executablePathProblem(manifest.executable) == nil, "\(manifest.executable)")
    if manifest.backgroundModes.contains(.location) {
        precondition(manifest.usageDescriptions.locationAlwaysAndWhenInUse != nil, "location mode without a reason")
    }
    switch manifest.kind {
    case .application:
        precondition(manifest.policyEntryPoint == nil, "an app with a policy entry point")
    case .policy:
        precondition(manifest.policyEntryPoint?.isEmpty == false, "a policy plug-in without an entry point")
    }
}
