import BackgrounderAppCore
package import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem

/// The session's screen lock, as logind reports it, and the first unlock after boot.
extension AppManager {
    /// The boot mark recording the first unlock since boot.
    package static let firstUnlockMark = "firstUnlock"

    /// logind reported the session's lock state: the same transitions as `bgctl lock` and
    /// `bgctl unlock`, once per change.
    /// - Parameters:
    ///   - locked: Locked or not.
    ///   - initial: The state read when the session was first found, rather than a change:
    ///     a session locked then, on a boot with no unlock yet, holds background launches
    ///     until it is unlocked.
    package func sessionLock(locked: Bool, initial: Bool) {
        if initial && locked, let bootID, (try? store.bootMark(Self.firstUnlockMark)) != bootID {
            awaitingFirstUnlock = true
            logger.notice("the session is locked since boot: background launches wait for the first unlock")
        }
        guard locked != screenLocked else {
            if !locked { firstUnlockHappened() }
            return
        }
        if locked {
            logger.info("the session locked: \(lock().detail)")
        } else {
            let detail = (try? unlock().detail) ?? "unlocked"
            logger.info("the session unlocked: \(detail)")
        }
    }

    /// The screen was unlocked: launches that waited for the first unlock since boot go ahead.
    package func firstUnlockHappened() {
        if let bootID { try? store.setBootMark(Self.firstUnlockMark, bootID) }
        guard awaitingFirstUnlock else { return }
        awaitingFirstUnlock = false
        let waiting = launchesAwaitingUnlock
        launchesAwaitingUnlock = [:]
        for (identifier, launches) in waiting.sorted(by: { $0.key < $1.key }) {
            for launch in launches {
                do {
                    // The event as it came: the first launches the app, the rest wait for it.
                    _ = try deliverEvent(
                        identifier, launch.reason, window: launch.window, payload: launch.payload, task: launch.task,
                        session: launch.session)
                    appLogger(identifier).info("\(launch.reason.rawValue) delivered after the first unlock")
                } catch {
                    appLogger(identifier).warning(
                        "\(launch.reason.rawValue) not delivered after the first unlock: \(error.message)")
                }
            }
        }
    }
}

/// An event that would have launched an app before the first unlock since boot.
package struct DeferredLaunch: Sendable {
    package var reason: LaunchReason
    package var window: EventWindowKind? = nil
    package var payload: JSONValue? = nil
    package var task: String? = nil
    package var session: String? = nil
}
