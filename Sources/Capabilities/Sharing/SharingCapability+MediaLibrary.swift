package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem

/// The person's music library, as iOS's media library: an app that declares
/// `NSAppleMusicUsageDescription` asks (`MPMediaLibrary.requestAuthorization`), the person is
/// asked once, and once they allow it the music folder is shared with the app read-only, as
/// `bgctl share` would share it: through descriptors the daemon opens, the sandbox unchanged.
/// Denied later, the folder is taken back.
extension SharingCapability {
    package nonisolated static func storedLibraryGrants(_ store: StateStore) -> [BundleID: MediaLibraryAuthorization] {
        ((try? store.authorizationLevels(service: .mediaLibrary)) ?? [:]).mapValues {
            MediaLibraryAuthorization(rawValue: $0) ?? .notDetermined
        }
    }

    /// `MEDIA_LIBRARY_AUTHORIZATION` from an app: what the person decided, and the folder once
    /// allowed. Not decided yet, the person is asked.
    package func requestLibraryAuthorization(_ identifier: BundleID, in apps: any AppCore) throws(ProtocolError)
        -> MediaLibraryStatus
    {
        let manifest = try apps.bundle(of: identifier).manifest
        guard let usage = manifest.usageDescriptions.mediaLibrary else {
            throw ProtocolError(
                .notAuthorized,
                "\(identifier)'s Info.plist has no \(InfoPlistKey.mediaLibraryUsage.rawValue), which the music library needs"
            )
        }
        let status = libraryGrants[identifier] ?? .notDetermined
        switch status {
        case .notDetermined:
            apps.askPerson(identifier, for: .mediaLibrary, asks: "granted", usage: usage)
            return MediaLibraryStatus(status: status)
        case .denied:
            return MediaLibraryStatus(status: status)
        case .granted:
            if let shared = files.grants(for: identifier).first(where: \.library) {
                return MediaLibraryStatus(status: status, folder: shared.path)
            }
            let note =
                musicDirectory.map { "\($0) could not be shared when access was allowed (the daemon's log says why)" }
                ?? "the daemon has no music folder (--music-directory)"
            return MediaLibraryStatus(status: status, note: note)
        }
    }

    /// `bgctl authorize ID media-library granted|denied`, or a person's answer to the prompt.
    package func authorize(_ request: Authorize, in apps: any AppCore) throws(ProtocolError) -> Done {
        let identifier = request.bundle
        let manifest = try apps.bundle(of: identifier).manifest
        guard case .mediaLibrary(let level) = request.grant, level != .notDetermined else {
            throw ProtocolError(.badRequest, "the media library is granted or denied")
        }
        if level == .granted && manifest.usageDescriptions.mediaLibrary == nil {
            throw ProtocolError(
                .notAuthorized,
                "cannot grant: \(identifier)'s Info.plist has no \(InfoPlistKey.mediaLibraryUsage.rawValue)")
        }
        do {
            try store.setAuthorization(identifier, request.grant)
        } catch {
            throw ProtocolError(.failed, "cannot store the grant: \(error)")
        }
        libraryGrants[identifier] = level
        let logger = apps.appLogger(identifier)
        logger.notice("the media library is now \(level.rawValue)")
        guard level == .granted else {
            // Exactly what the permission shared, wherever the music folder is now.
            let shared = files.grants(for: identifier).filter(\.library).map(\.path)
            if !shared.isEmpty { _ = try unshare(UnshareRequest(bundle: identifier, paths: shared), in: apps) }
            return Done(detail: "\(identifier): media-library \(level.rawValue)")
        }
        guard let musicDirectory else {
            return Done(detail: "\(identifier): media-library granted (the daemon has no music folder)")
        }
        // The person's own folder, opened as for `bgctl share` (a planted link is not
        // followed), here on the actor: a moment, unless the folder is on a slow network share.
        do throws(ProtocolError) {
            var grant = try SharedFileGrant.opening(
                musicDirectory, appDirectories: FileIdentity.of(apps.appDirectories))
            grant.library = true
            _ = try share([grant], with: identifier, in: apps)
        } catch {
            logger.warning("the media library is granted, but \(musicDirectory) is not shared: \(error)")
            return Done(detail: "\(identifier): media-library granted; \(musicDirectory) not shared: \(error)")
        }
        return Done(detail: "\(identifier): media-library granted")
    }
}
