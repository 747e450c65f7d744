import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation
import Logging
import ServiceLifecycle

/// Follows the person's login session in logind, on the system bus: its `LockedHint`
/// property (set by the screen locker) and its `Lock`/`Unlock` signals drive the same
/// transitions as `bgctl lock` and `bgctl unlock`.
///
/// The session is `XDG_SESSION_ID`'s, else logind's `auto` (the caller's session, or its
/// user's display session), else the first session of this user. Signals come from the
/// session's real object path, so the path is resolved before anything is matched.
final class SessionLockWatcher: Service, Sendable {
    private let bus: DesktopBus
    private let apps: AppManager
    private let logger: Logger
    private let sessionPath = Locked<String?>(nil)
    /// logind's connection: the session's signals count only from it.
    private let logind = NameOwner(SessionLockWatcher.destination, role: "logind")
    private let changes: AsyncStream<(locked: Bool, initial: Bool)>.Continuation
    private let stream: AsyncStream<(locked: Bool, initial: Bool)>

    static let destination = "org.freedesktop.login1"
    static let sessionInterface = "org.freedesktop.login1.Session"

    init(bus: DesktopBus, apps: AppManager, logger: Logger) {
        self.bus = bus
        self.apps = apps
        self.logger = logger
        (stream, changes) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func run() async throws {
        bus.add(endpoint())
        await cancelWhenGracefulShutdown { [self] in
            for await change in stream {
                await apps.sessionLock(locked: change.locked, initial: change.initial)
            }
        }
    }

    private func endpoint() -> BusEndpoint {
        BusEndpoint(
            name: DesktopBus.systemEndpoint, kind: .system,
            setUp: { [self] (connection) throws(DBusError) in
                try logind.follow(on: connection)
                let signals = "type='signal',sender='\(Self.destination)'"
                try connection.addMatch(signals + ",interface='\(Self.sessionInterface)'") { [self] message, _ in
                    guard message.path == sessionPath.withLock({ $0 }), logind.sent(message, logger: logger) else {
                        return
                    }
                    switch message.member {
                    case "Lock": changes.yield((true, false))
                    case "Unlock": changes.yield((false, false))
                    default: break
                    }
                }
                try connection.addMatch(
                    signals + ",interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
                ) { [self] message, _ in
                    guard message.path == sessionPath.withLock({ $0 }), logind.sent(message, logger: logger),
                        let arguments = try? message.readAll(), arguments.first?.stringValue == Self.sessionInterface,
                        let hint = arguments.dropFirst().first?.dictionaryValue?["LockedHint"]?.booleanValue
                    else { return }
                    changes.yield((hint, false))
                }
                bus.setNote(.screenLock, "looking for the session in logind")
                findSession(on: connection)
            },
            lost: { [self] in
                sessionPath.withLock { $0 = nil }
                bus.setNote(.screenLock, "not followed: the system bus connection was lost")
            })
    }

    /// Resolves the session's object path, then reads its `LockedHint`.
    private func findSession(on connection: BusConnection) {
        let manager = ("/org/freedesktop/login1", "org.freedesktop.login1.Manager")
        let requested = bus.environmentValue("XDG_SESSION_ID").flatMap { $0.isEmpty ? nil : $0 } ?? "auto"
        connection.call(Self.destination, manager.0, manager.1, "GetSession", [.string(requested)]) {
            [self] result in
            if case .success(let values) = result, let path = values.first?.stringValue {
                follow(path, on: connection)
                return
            }
            // A user service is in no session: the user's first session stands in.
            connection.call(Self.destination, manager.0, manager.1, "ListSessions") { [self] result in
                let uid = Int64(getuid())
                guard case .success(let values) = result,
                    case .array(_, let sessions) = values.first,
                    let path = sessions.lazy.compactMap({ session -> String? in
                        guard case .structure(let fields) = session, fields.count == 5,
                            fields[1].integerValue == uid
                        else { return nil }
                        return fields[4].stringValue
                    }).first
                else {
                    let reason: String
                    switch result {
                    case .failure(let error): reason = "logind did not answer: \(error)"
                    case .success: reason = "logind has no session of uid \(uid)"
                    }
                    bus.setNote(.screenLock, "not followed: \(reason)")
                    logger.info("screen lock not followed: \(reason)")
                    return
                }
                follow(path, on: connection)
            }
        }
    }

    private func follow(_ path: String, on connection: BusConnection) {
        sessionPath.withLock { $0 = path }
        connection.call(
            Self.destination, path, "org.freedesktop.DBus.Properties", "Get",
            [.string(Self.sessionInterface), .string("LockedHint")]
        ) { [self] result in
            let locked = (try? result.get())?.first?.booleanValue ?? false
            bus.setNote(.screenLock, "following logind session \(path)")
            logger.info("following the screen lock of logind session \(path) (locked: \(locked))")
            changes.yield((locked, true))
        }
    }
}
