import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// `bgctl permissions`: what people granted, read from the store (what survives a restart),
/// never changed here: `AUTHORIZE` is the only way to change a grant.
extension AppManager {
    /// `PERMISSIONS`: every loaded app's grants, and those of apps no longer loaded that still
    /// have grants stored; or one app's.
    /// - Throws: ``ProtocolError`` for an app that is neither loaded nor has grants stored,
    ///   or when the store cannot be read.
    package nonisolated func permissions(_ bundle: BundleID?) throws(ProtocolError) -> PermissionList {
        let grants: [StateStore.StoredGrant]
        do {
            grants = try store.grants(for: bundle)
        } catch {
            throw ProtocolError(.failed, "cannot read the stored grants: \(error)")
        }
        let loaded = registry.catalog.loaded
        var identifiers = Set(grants.map(\.bundleIdentifier))
        if let bundle {
            if loaded[bundle] != nil { identifiers.insert(bundle) }
            guard !identifiers.isEmpty else {
                throw ProtocolError(
                    .notFound, "no app '\(bundle)': no such bundle is loaded and no grants are stored for it")
            }
        } else {
            identifiers.formUnion(loaded.keys)
        }
        return PermissionList(
            apps: identifiers.sorted().map { identifier in
                let location = grants.first { $0.bundleIdentifier == identifier && $0.service == .location }
                let microphone = grants.first { $0.bundleIdentifier == identifier && $0.service == .microphone }
                let notifications = grants.first { $0.bundleIdentifier == identifier && $0.service == .notifications }
                let library = grants.first { $0.bundleIdentifier == identifier && $0.service == .mediaLibrary }
                var entry = PermissionList.Entry(
                    bundle: identifier,
                    name: loaded[identifier]?.manifest.name,
                    loaded: loaded[identifier] != nil,
                    location: location.flatMap { LocationAuthorization(rawValue: $0.level) } ?? .notDetermined,
                    locationChangedAt: location?.changedAt.timeIntervalSince1970,
                    microphone: microphone.flatMap { MicrophoneAuthorization(rawValue: $0.level) }
                        ?? .notDetermined,
                    microphoneChangedAt: microphone?.changedAt.timeIntervalSince1970,
                    notifications: notifications.flatMap { NotificationAuthorization(rawValue: $0.level) }
                        ?? .notDetermined,
                    notificationsChangedAt: notifications?.changedAt.timeIntervalSince1970
                )
                entry.mediaLibrary = library.flatMap { MediaLibraryAuthorization(rawValue: $0.level) } ?? .notDetermined
                entry.mediaLibraryChangedAt = library?.changedAt.timeIntervalSince1970
                return entry
            }
        )
    }
}
