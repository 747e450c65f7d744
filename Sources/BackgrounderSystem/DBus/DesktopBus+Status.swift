package import BackgrounderProtocol

/// What the desktop parts found, by part, for `bgctl status`.
package enum DesktopPart: String, Sendable, CaseIterable {
    case notifications, screenLock, unifiedPush

    /// Said until the part has looked.
    package var initialNote: String {
        switch self {
        case .notifications: "not looked for yet"
        case .screenLock: "not followed yet"
        case .unifiedPush: "no distributor looked for yet"
        }
    }
}

extension DesktopBus {
    /// The endpoint whose connection stands for the session bus in `bgctl status`.
    package static let sessionEndpoint = "notifications"
    /// The endpoint whose connection stands for the system bus.
    package static let systemEndpoint = "logind"

    /// What `bgctl status` shows of the desktop.
    package func status(mediaPlayers: Int) -> DesktopStatus {
        let statuses = self.statuses
        let notes = self.notes
        func connection(_ kind: BusKind, endpoint: String) -> ServiceConnection {
            let server = environmentValue(kind.addressVariable).flatMap { $0.isEmpty ? nil : $0 } ?? "default"
            guard let status = statuses[endpoint] else {
                return ServiceConnection(server: server, state: .disconnected, detail: "not used")
            }
            return ServiceConnection(
                server: server, state: status.connected ? .connected : .disconnected,
                detail: status.connected ? nil : status.detail)
        }
        let systemBus = connection(.system, endpoint: Self.systemEndpoint)
        // Until logind answers, the system bus's own trouble says why the lock is not followed.
        let screenLock =
            notes[.screenLock] ?? systemBus.detail.map { "not followed: \($0)" } ?? DesktopPart.screenLock.initialNote
        return DesktopStatus(
            sessionBus: connection(.session, endpoint: Self.sessionEndpoint),
            systemBus: systemBus,
            mediaPlayers: mediaPlayers,
            notifications: notes[.notifications] ?? DesktopPart.notifications.initialNote,
            screenLock: screenLock,
            unifiedPush: notes[.unifiedPush] ?? DesktopPart.unifiedPush.initialNote)
    }
}
