package import BackgrounderCore
import Foundation
package import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps an app's identity aside when its bundle is gone and another bundle claims its
/// identifier, and exchanges it back when a person says the newcomer is that app
/// (`bgctl adopt-bundle`): the grants in the store, the data directory on disk.
///
/// The data moves under `STATE/retired`, which no app's sandbox names, so the newcomer (the
/// same uid under a root daemon, since the uid is the identifier's) starts with an empty
/// directory. Each move is a rename within the state directory; a daemon killed between
/// the rename and the store's commit leaves a staging directory that ``finishInterrupted()``
/// completes on the next start.
package struct IdentityRetirement: Sendable {
    package let store: StateStore
    package let directories: AppDirectories
    /// Where data directories are volumes: a volume is unmounted before its directory moves,
    /// and its image moves with it (`retired/ID~image`).
    package let volumes: DataVolumes?
    package let logger: Logger

    /// Keeps the removed app's identity aside (``retire(_:)``), and says so in the log.
    /// - Returns: Whether it was moved now, and why the claimant must wait when it could not be.
    package func keepAside(_ claim: BundleClaim) -> (moved: Bool, holdReason: String?) {
        do {
            guard try retire(claim) else { return (false, nil) }
        } catch {
            logger.error("cannot keep \(claim.identifier)'s identity aside: \(error)")
            return (
                false,
                "its data and grants could not be kept aside (\(error)); this bundle waits so it inherits nothing"
            )
        }
        logger.notice(
            "\(claim.claimant) claims the identifier of the app at \(claim.previous), which is gone: it starts fresh; the removed app's data and grants are kept aside until a person says it is the same app (bgctl adopt-bundle \(claim.identifier))"
        )
        return (true, nil)
    }

    /// Keeps the removed app's identity aside; the claimant is the app from now on.
    /// - Returns: Whether this call did it (`false`: the store no longer names the removed
    ///   app's path, so it was done already).
    /// - Throws: The store's or the file system's error; nothing is lost (the data waits in
    ///   its staging place, and the store still names the removed app).
    package func retire(_ claim: BundleClaim) throws -> Bool {
        let identifier = claim.identifier
        // Done already (the store names the claimant): nothing of the claimant's may move.
        guard try store.recordedBundlePaths()[identifier] == claim.previous else { return false }
        try PrivateDirectory.prepareOwn(directories.retired, purpose: "retired identity", mode: 0o700)
        try volumes?.detach(directories.data + "/" + identifier.rawValue)
        // Staged first, so the claimant never sees the data, whatever stops us here.
        for item in items(identifier) {
            let staged = item.kept + Stage.retiring.rawValue
            if !exists(staged) && exists(item.current) { try move(item.current, to: staged) }
        }
        guard try store.retire(claim, at: Date()) else { return false }
        for item in items(identifier) { try finish(item.kept) }
        // Its temporary files were never the kind to keep.
        try? FileManager.default.removeItem(atPath: directories.temporary + "/" + identifier.rawValue)
        return true
    }

    /// Exchanges the identity kept aside for the app's current one, the bundle at `currentPath`.
    /// - Returns: Where the restored identity was loaded from, or `nil` when none is kept.
    package func exchange(_ identifier: BundleID, currentPath: String) throws -> String? {
        guard try store.retiredIdentity(identifier) != nil else { return nil }
        try volumes?.detach(directories.data + "/" + identifier.rawValue)
        for item in items(identifier) {
            let staged = item.kept + Stage.adopting.rawValue
            if exists(item.kept) { try move(item.kept, to: staged) }
            if exists(item.current) { try move(item.current, to: item.kept) }
            if exists(staged) { try move(staged, to: item.current) }
        }
        return try store.exchangeRetired(identifier, currentPath: currentPath, at: Date())
    }

    /// Completes moves a stopped daemon left half done: a retirement the store committed (or
    /// will commit on the next scan) and an exchange stopped between its renames.
    package func finishInterrupted() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directories.retired) else { return }
        for name in names {
            for stage in Stage.allCases where name.hasSuffix(stage.rawValue) {
                let keptName = String(name.dropLast(stage.rawValue.count))
                let kept = directories.retired + "/" + keptName
                do {
                    switch stage {
                    case .retiring: try finish(kept)
                    case .adopting:
                        try move(directories.retired + "/" + name, to: exists(kept) ? current(of: keptName) : kept)
                    }
                    logger.notice("finished moving \(keptName), which a stopped run left half done")
                } catch {
                    logger.error("cannot finish moving \(keptName): \(error)")
                }
            }
        }
    }

    /// Staging names end in a character no bundle identifier may hold, so none is taken for
    /// an app's identity kept aside.
    private enum Stage: String, CaseIterable {
        case retiring = "~retiring"
        case adopting = "~adopting"
    }

    /// A kept volume image is `retired/ID~image`.
    private static let imageSuffix = "~image"

    /// What an identity holds on disk, where it is in use and where it is kept aside: its
    /// data directory, and where data directories are volumes its image.
    private func items(_ identifier: BundleID) -> [(current: String, kept: String)] {
        let kept = directories.retired + "/" + identifier.rawValue
        var items = [(current: directories.data + "/" + identifier.rawValue, kept: kept)]
        if let volumes { items.append((current: volumes.image(identifier), kept: kept + Self.imageSuffix)) }
        return items
    }

    /// Where an item kept as `retired/NAME` is in use.
    private func current(of keptName: String) -> String {
        guard keptName.hasSuffix(Self.imageSuffix), let volumes else { return directories.data + "/" + keptName }
        return volumes.image(BundleID(String(keptName.dropLast(Self.imageSuffix.count))))
    }

    /// The staged item replaces the one kept aside before (one identity is kept per identifier).
    private func finish(_ kept: String) throws {
        let staged = kept + Stage.retiring.rawValue
        guard exists(staged) else { return }
        if exists(kept) {
            logger.notice("\(kept): what was kept aside before is replaced by the newer identity")
            try FileManager.default.removeItem(atPath: kept)
        }
        try move(staged, to: kept)
    }

    private func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    private func move(_ source: String, to target: String) throws {
        guard rename(source, target) == 0 else {
            throw DaemonError(
                .directory, path: source, "cannot move it to \(target): \(String(cString: strerror(errno)))")
        }
    }

    /// Creates a value from its parts.
    package init(store: StateStore, directories: AppDirectories, volumes: DataVolumes?, logger: Logger) {
        self.store = store
        self.directories = directories
        self.volumes = volumes
        self.logger = logger
    }
}
