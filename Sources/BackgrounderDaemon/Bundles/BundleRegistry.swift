import BackgrounderBundles
import BackgrounderCore
import BackgrounderProtocol
import Foundation
import Logging
import Synchronization

/// The bundles the daemon knows: scanned from the bundle directories at start and on
/// `bgctl reload`. A refused bundle is logged with its path, key and reason; the rest load.
actor BundleRegistry {
    private let directories: [String]
    private let scanner: BundleScanner
    private let store: StateStore
    private let logger: Logger
    /// The catalog, also published behind a lock so the control socket can answer
    /// `BUNDLES` and `STATUS` on its event loop without waiting for the actor.
    private let published = Mutex(BundleCatalog())

    init(directories: [String], scanner: BundleScanner = BundleScanner(), store: StateStore, logger: Logger) {
        self.directories = directories
        self.scanner = scanner
        self.store = store
        self.logger = logger
    }

    /// Rescans every bundle directory and reports what changed.
    @discardableResult
    func reload() -> ReloadResult {
        let (newCatalog, unreadable) = scanner.scan(directories: directories)
        for problem in unreadable {
            logger.warning("\(problem)")
        }
        let catalog = published.withLock { $0 }
        let before = Set(catalog.loaded.keys)
        let after = Set(newCatalog.loaded.keys)
        for bundle in newCatalog.sortedLoaded where !before.contains(bundle.manifest.bundleIdentifier) {
            var bundleLogger = logger
            bundleLogger[metadataKey: "bundle"] = "\(bundle.manifest.bundleIdentifier)"
            bundleLogger.info(
                "loaded \(bundle.path) (modes: \(bundle.manifest.sortedModeNames.joined(separator: ",")))"
            )
            for warning in bundle.warnings {
                bundleLogger.warning("\(warning)")
            }
        }
        for problem in newCatalog.refused where !catalog.refused.contains(problem) {
            logger.error("refused \(problem)")
        }
        published.withLock { $0 = newCatalog }
        do {
            try store.recordLoaded(newCatalog.sortedLoaded, at: Date())
        } catch {
            logger.error("could not record bundles in \(store.path): \(error)")
        }
        return ReloadResult(
            loaded: newCatalog.loaded.count,
            refused: newCatalog.refused.count,
            added: after.subtracting(before).sorted(),
            removed: before.subtracting(after).sorted()
        )
    }

    /// The bundles as of the last scan.
    nonisolated var catalog: BundleCatalog { published.withLock { $0 } }

    /// Every bundle, loaded first, for `bgctl bundles`.
    nonisolated func list() -> BundleList {
        let catalog = self.catalog
        return BundleList(
            bundles: catalog.sortedLoaded.map(BundleEntry.loaded) + catalog.refused.map(BundleEntry.refused)
        )
    }

    /// Counts for `bgctl status`.
    nonisolated func counts() -> BundleCounts {
        published.withLock { BundleCounts(loaded: $0.loaded.count, refused: $0.refused.count) }
    }
}
