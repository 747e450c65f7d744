package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
import Foundation

/// Files and folders a person shares with an app where they lie (`bgctl share`), as the
/// desktop's document portal shares them: the app reads exactly those, through descriptors
/// the daemon opens (``SharedFiles``), and its sandbox never widens. Grants are kept in the
/// store, so they hold across the app's launches and the daemon's restarts, and go with the
/// app's identity (a bundle that claims a removed app's identifier gets none). The person's
/// music folder is shared the same way with an app the person allows into their music library
/// (SharingCapability+MediaLibrary.swift).
@AppCoreActor
package final class SharingCapability: AppCapability {
    /// The table the descriptor socket opens files from.
    package let files: SharedFiles
    package let store: StateStore
    /// The person's music folder (`--music-directory`, else `XDG_MUSIC_DIR`), if there is one.
    package let musicDirectory: String?
    /// Media library grants by app, loaded from the store.
    package var libraryGrants: [BundleID: MediaLibraryAuthorization]

    package nonisolated init(files: SharedFiles, store: StateStore, musicDirectory: String?) {
        self.files = files
        self.store = store
        self.musicDirectory = musicDirectory
        libraryGrants = Self.storedLibraryGrants(store)
    }

    package var authorizationServices: [AuthorizationService] { [.mediaLibrary] }

    package func app(_ identifier: BundleID, changed change: LifecycleChange, in apps: any AppCore) {}

    package func identityChanged(_ identifier: BundleID, in apps: any AppCore) {
        files.replace(identifier, with: (try? store.sharedFiles()[identifier]) ?? [])
        libraryGrants[identifier] = Self.storedLibraryGrants(store)[identifier]
    }

    /// Records files a person shared, already opened and resolved by the caller.
    package func share(_ grants: [SharedFileGrant], with identifier: BundleID, in apps: any AppCore)
        throws(ProtocolError) -> SharedFileList
    {
        do {
            try store.share(grants, with: identifier, at: Date())
        } catch {
            throw ProtocolError(.failed, "SHARE: cannot record it: \(error)")
        }
        var current = Dictionary(uniqueKeysWithValues: files.grants(for: identifier).map { ($0.path, $0) })
        for grant in grants { current[grant.path] = grant }
        files.replace(identifier, with: Array(current.values))
        for grant in grants {
            apps.appLogger(identifier).info(
                "a person shared \(grant.directory ? "the folder" : "the file") \(grant.path)")
        }
        return list(identifier)
    }

    /// `UNSHARE`: takes back shared paths (all of them when none is named).
    package func unshare(_ request: UnshareRequest, in apps: any AppCore) throws(ProtocolError) -> SharedFileList {
        let bundle = request.bundle
        let shared = Set(files.grants(for: bundle).map(\.path))
        for path in request.paths where !shared.contains(path) {
            throw ProtocolError(
                .notFound, "UNSHARE: paths: '\(path)' is not shared with \(request.bundle) (bgctl shared lists what is)"
            )
        }
        do {
            try store.unshare(request.paths, from: bundle)
        } catch {
            throw ProtocolError(.failed, "UNSHARE: cannot record it: \(error)")
        }
        let taken = Set(request.paths)
        files.replace(
            bundle,
            with: request.paths.isEmpty ? [] : files.grants(for: bundle).filter { !taken.contains($0.path) })
        return list(bundle)
    }

    /// `SHARES`: what is shared with an app.
    package func list(_ identifier: BundleID) -> SharedFileList {
        SharedFileList(bundle: identifier, files: files.grants(for: identifier).map(\.listed))
    }
}
