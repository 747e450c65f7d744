import BackgrounderCore
import Foundation
import Logging

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
struct IdentityRetirement: Sendable {
    let store: StateStore
    let directories: AppDirectories
    /// Where data directories are volumes: a volume is unmounted before its directory moves,
    /// and its image moves with it (`retired/ID~image`).
    let volumes: DataVolumes?
    let logger: Logger

    /// Keeps the removed app's identity aside (``retire(_:)``), and says so in the log.
    /// - Returns: Whether it was moved now, and why the claimant must wait when it could not be.
    func keepAside(_ claim: BundleClaim) -> (moved: Bool, holdReason: String?) {
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
    ///   its staging directory, and the store still names the removed app).
    func retire(_ claim: BundleClaim) throws -> Bool {
        let identifier = claim.identifier
        try PrivateDirectory.prepareOwn(directories.retired, purpose: "retired identity", mode: 0o700)
        let data = directories.data + "/" + identifier
        let staged = stagingPath(identifier, .retiring)
        try volumes?.detach(data)
        // Staged first, so the claimant never sees the data, whatever stops us here.
        if !exists(staged) && exists(data) { try move(data, to: staged) }
        guard try store.retire(claim, at: Date()) else { return false }
        try finish(identifier)
        if let volumes, exists(volumes.image(identifier)) {
            try move(volumes.image(identifier), to: keptImage(identifier))
        }
        // Its temporary files were never the kind to keep.
        try? FileManager.default.removeItem(atPath: directories.temporary + "/" + identifier)
        return true
    }

    /// Exchanges the identity kept aside for the app's current one, the bundle at `currentPath`.
    /// - Returns: Where the restored identity was loaded from, or `nil` when none is kept.
    func exchange(_ identifier: String, currentPath: String) throws -> String? {
        guard try store.retiredIdentity(identifier) != nil else { return nil }
        let data = directories.data + "/" + identifier
        let kept = directories.retired + "/" + identifier
        let staged = stagingPath(identifier, .adopting)
        try volumes?.detach(data)
        if exists(kept) { try move(kept, to: staged) }
        if exists(data) { try move(data, to: kept) }
        if exists(staged) { try move(staged, to: data) }
        if let volumes {
            let current = volumes.image(identifier)
            let stagedImage = keptImage(identifier) + Stage.adopting.rawValue
            if exists(keptImage(identifier)) { try move(keptImage(identifier), to: stagedImage) }
            if exists(current) { try move(current, to: keptImage(identifier)) }
            if exists(stagedImage) { try move(stagedImage, to: current) }
        }
        return try store.exchangeRetired(identifier, currentPath: currentPath, at: Date())
    }

    /// Completes moves a stopped daemon left half done: a retirement the store committed (or
    /// will commit on the next scan) and an exchange stopped between its renames.
    func finishInterrupted() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directories.retired) else { return }
        for name in names {
            for stage in Stage.allCases where name.hasSuffix(stage.rawValue) {
                let identifier = String(name.dropLast(stage.rawValue.count))
                do {
                    switch stage {
                    case .retiring: try finish(identifier)
                    case .adopting where identifier.hasSuffix(Self.imageSuffix):
                        // An image between its renames, as the directory below.
                        let app = String(identifier.dropLast(Self.imageSuffix.count))
                        let kept = keptImage(app)
                        let current = volumes?.image(app) ?? kept
                        try move(directories.retired + "/" + name, to: exists(kept) ? current : kept)
                    case .adopting:
                        let data = directories.data + "/" + identifier
                        let kept = directories.retired + "/" + identifier
                        try move(directories.retired + "/" + name, to: exists(kept) ? data : kept)
                    }
                    logger.notice("finished keeping \(identifier)'s identity aside, which a stopped run left half done")
                } catch {
                    logger.error("cannot finish keeping \(identifier)'s identity aside: \(error)")
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

    /// Where the image of an identity kept aside waits.
    private func keptImage(_ identifier: String) -> String {
        directories.retired + "/" + identifier + Self.imageSuffix
    }

    private static let imageSuffix = "~image"

    private func stagingPath(_ identifier: String, _ stage: Stage) -> String {
        directories.retired + "/" + identifier + stage.rawValue
    }

    /// The staged data replaces the identity kept aside before (one is kept per identifier).
    private func finish(_ identifier: String) throws {
        let staged = stagingPath(identifier, .retiring)
        guard exists(staged) else { return }
        let kept = directories.retired + "/" + identifier
        if exists(kept) {
            logger.notice("\(identifier): the identity kept aside before is replaced by the newer one")
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
}
