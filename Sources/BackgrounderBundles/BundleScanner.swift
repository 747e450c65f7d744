public import BackgrounderCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds `*.bundle` directories and validates each, so one bad bundle never keeps the
/// others from loading.
public struct BundleScanner: Sendable {
    /// The validator every bundle goes through.
    public var validator: ManifestValidator

    /// Creates a scanner.
    /// - Parameter validator: The validator; by default it trusts root and the current user.
    public init(validator: ManifestValidator = ManifestValidator(trustedOwners: BundleScanner.defaultTrustedOwners)) {
        self.validator = validator
    }

    /// Root and the user running this process: the owners sshd's StrictModes accepts.
    public static var defaultTrustedOwners: Set<UInt32> { [0, UInt32(geteuid())] }

    /// Validates one bundle directory.
    /// - Parameter path: The bundle directory.
    /// - Returns: The validated bundle or the reason it was refused.
    public func validate(bundleAt path: String) -> Result<ValidatedBundle, BundleProblem> {
        let source = POSIXBundleFileSource(bundlePath: path)
        return Result { () throws(BundleProblem) in try validator.validate(source) }
    }

    /// Scans directories for bundles, in a stable order (directories as given, entries sorted).
    /// - Parameters:
    ///   - directories: Directories that contain `Name.bundle` directories.
    ///   - incumbents: The path each identifier was loaded from before, which keeps it.
    /// - Returns: The catalog, and a problem for each directory that could not be listed and
    ///   for each directory in them not named `Name.bundle` (skipped, but said).
    public func scan(directories: [String], incumbents: [BundleID: String] = [:]) -> (
        catalog: BundleCatalog, unreadable: [BundleProblem]
    ) {
        var outcomes: [Result<ValidatedBundle, BundleProblem>] = []
        var unreadable: [BundleProblem] = []
        for directory in directories {
            // A missing bundles directory is normal on a new machine: report it apart from
            // the bundles, so it is not counted as a refused bundle, with the system's reason.
            guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                unreadable.append(
                    BundleProblem(
                        path: directory, key: "--bundles",
                        reason: "cannot list the directory: \(Self.listingFailure(directory))"))
                continue
            }
            for entry in entries.sorted() {
                let path = directory + "/" + entry
                if entry.hasSuffix(".bundle") {
                    outcomes.append(validate(bundleAt: path))
                } else if !entry.hasPrefix("."), Self.isDirectory(path) {
                    unreadable.append(Self.notABundle(path))
                }
            }
        }
        return (BundleCatalog(outcomes, incumbents: incumbents), unreadable)
    }

    /// Why a directory without the `.bundle` suffix is not loaded.
    public static func notABundle(_ path: String) -> BundleProblem {
        BundleProblem(
            path: path, key: "path",
            reason: "not a Name.bundle directory, so it is not loaded; rename it to end in .bundle")
    }

    /// The system's reason `directory` cannot be listed, which FileManager's error does not
    /// carry on Linux; asked only once listing has failed.
    private static func listingFailure(_ directory: String) -> String {
        guard let handle = opendir(directory) else { return String(cString: strerror(errno)) }
        closedir(handle)
        return "its entries could not be read"
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}
