package import BackgrounderBundles
package import BackgrounderCore
package import BackgrounderProtocol
import Foundation
package import Logging

/// The bundles the daemon knows: scanned from the bundle directories at start and on
/// `bgctl reload`. A refused bundle is logged with its path, key and reason; the rest load.
package actor BundleRegistry {
    private let directories: [String]
    /// Directories skipped silently while they do not exist (the default search path).
    private let optionalDirectories: Set<String>
    private let scanner: BundleScanner
    private let store: StateStore
    private let logger: Logger
    /// The catalog, also published behind a lock so the control socket can answer
    /// `BUNDLES` and `STATUS` on its event loop without waiting for the actor.
    private let published = Locked(BundleCatalog())
    /// Each loaded bundle's files as validated, by bundle path, to check them again at launch.
    private let fingerprints = Locked([String: BundleFingerprint]())
    /// Bundles held back because they claim the identifier of an app whose bundle is gone
    /// and its identity could not be kept aside yet, by identifier: the claimant's path.
    private let held = Locked([BundleID: String]())
    /// Keeps a removed app's identity aside for a claimant; `nil` while
    /// ``IdentityRetirement`` is used directly (at start, before any app's state is loaded).
    private var retire: (@Sendable (BundleClaim) async -> String?)?
    /// Told of every scan's catalog, before the reload returns (the app manager, which ends
    /// the apps whose bundle went away or was replaced).
    private var reloaded: (@Sendable (BundleCatalog) async -> Void)?
    private let retirement: IdentityRetirement
    /// The reload under way: reloads run one after another, so two never keep the same
    /// identity aside.
    private var lastReload: Task<ReloadResult, Never>?

    package init(
        directories: [String], optionalDirectories: Set<String> = [], scanner: BundleScanner = BundleScanner(),
        store: StateStore, retirement: IdentityRetirement, logger: Logger
    ) {
        self.directories = directories
        self.optionalDirectories = optionalDirectories
        self.scanner = scanner
        self.store = store
        self.retirement = retirement
        self.logger = logger
    }

    /// From now on, identities are kept aside by `retire` (the app manager, which also
    /// drops what it holds in memory for them).
    package func retireThrough(_ retire: @escaping @Sendable (BundleClaim) async -> String?) {
        self.retire = retire
    }

    /// From now on, `handler` hears each scan's catalog before the reload returns.
    package func afterEachReload(_ handler: @escaping @Sendable (BundleCatalog) async -> Void) {
        reloaded = handler
    }

    /// The fingerprint of a loaded bundle's files as the last scan validated them.
    package nonisolated func fingerprint(ofBundleAt path: String) -> BundleFingerprint? {
        fingerprints.withLock { $0[path] }
    }

    /// Rescans every bundle directory and reports what changed.
    @discardableResult
    package func reload() async -> ReloadResult {
        let previous = lastReload
        let next = Task {
            _ = await previous?.value
            return await scan()
        }
        lastReload = next
        return await next.value
    }

    private func scan() async -> ReloadResult {
        // A bundle keeps the identifier it was loaded with, in this run or (from the store)
        // the last: a copy dropped beside it is refused, whatever its name sorts to.
        let recorded = (try? store.recordedBundlePaths()) ?? [:]
        var incumbents = recorded
        for (identifier, bundle) in published.withLock({ $0.loaded }) { incumbents[identifier] = bundle.path }
        var (newCatalog, unreadable) = scanner.scan(directories: directories, incumbents: incumbents)
        // A bundle claiming a removed app's identifier starts fresh: the app's identity is
        // kept aside first, or the claimant waits.
        var claimants: [BundleID: String] = [:]
        for claim in newCatalog.claimsOnRemovedApps(
            recorded: recorded, exists: { FileManager.default.fileExists(atPath: $0) })
        {
            if let reason = await keepAside(claim) {
                newCatalog.hold(claim, because: reason)
                claimants[claim.identifier] = claim.claimant
            }
        }
        held.withLock { $0 = claimants }
        for problem in unreadable {
            // An optional directory that is not there is normal; one that is there but
            // cannot be listed is still worth a warning.
            if optionalDirectories.contains(problem.path) && !FileManager.default.fileExists(atPath: problem.path) {
                continue
            }
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
        let prints = Dictionary(
            newCatalog.loaded.values.map { ($0.path, BundleFingerprint(of: $0)) },
            uniquingKeysWith: { first, _ in first })
        fingerprints.withLock { $0 = prints }
        published.withLock { $0 = newCatalog }
        do {
            try store.recordLoaded(newCatalog.sortedLoaded, at: Date())
        } catch {
            logger.error("could not record bundles in \(store.path): \(error)")
        }
        await reloaded?(newCatalog)
        return ReloadResult(
            loaded: newCatalog.loaded.count,
            refused: newCatalog.refused.count,
            added: after.subtracting(before).sorted().map(\.rawValue),
            removed: before.subtracting(after).sorted().map(\.rawValue)
        )
    }

    private func keepAside(_ claim: BundleClaim) async -> String? {
        if let retire { return await retire(claim) }
        return retirement.keepAside(claim).holdReason
    }

    /// The bundles as of the last scan.
    package nonisolated var catalog: BundleCatalog { published.withLock { $0 } }

    /// The bundle to launch for an app, checked again now with the scanner's rules: a bundle
    /// is launched only as it was when last validated.
    /// - Returns: The bundle as loaded by the last scan.
    /// - Throws: ``BundleProblem`` when the last scan refused or dropped it, it no longer
    ///   validates, or its manifest or files changed since that scan (`bgctl reload`
    ///   validates the new version).
    /// - Parameter lastPath: Where the app's bundle was when the daemon last knew it, to
    ///   name the reason a later scan refused it.
    package nonisolated func bundleToLaunch(_ identifier: BundleID, lastPath: String?) throws(BundleProblem)
        -> ValidatedBundle
    {
        let catalog = self.catalog
        guard let loaded = catalog.loaded[identifier] else {
            // A bundle held back until a person adopts it: say so, and how.
            if let claimant = held.withLock({ $0[identifier] }),
                let refusal = catalog.refused.first(where: { $0.path == claimant })
            {
                throw refusal
            }
            if let lastPath,
                let refusal = catalog.refused.first(where: { $0.path == lastPath || $0.path.hasPrefix(lastPath + "/") })
            {
                throw refusal
            }
            throw BundleProblem(
                path: identifier.rawValue, key: "CFBundleIdentifier",
                reason: "no bundle with this identifier passed the last scan (see `bgctl bundles`)")
        }
        let before = fingerprints.withLock { $0[loaded.path] }
        let now = scanner.validate(bundleAt: loaded.path)
        switch now {
        case .failure(let problem):
            throw problem
        case .success(let revalidated):
            guard revalidated.manifest == loaded.manifest else {
                throw BundleProblem(
                    path: loaded.path + "/Info.plist", key: "Info.plist",
                    reason: "changed since the bundle was validated; `bgctl reload` validates the new one")
            }
            guard before == BundleFingerprint(of: revalidated) else {
                throw BundleProblem(
                    path: loaded.path, key: loaded.manifest.executable,
                    reason:
                        "Info.plist or the executable was replaced or changed since the bundle was validated; `bgctl reload` validates the new one"
                )
            }
        }
        return loaded
    }

    /// Every bundle, loaded first, for `bgctl bundles`.
    package nonisolated func list() -> BundleList {
        let catalog = self.catalog
        return BundleList(
            bundles: catalog.sortedLoaded.map(BundleEntry.loaded) + catalog.refused.map(BundleEntry.refused)
        )
    }

    /// Counts for `bgctl status`.
    package nonisolated func counts() -> BundleCounts {
        published.withLock { BundleCounts(loaded: $0.loaded.count, refused: $0.refused.count) }
    }
}
