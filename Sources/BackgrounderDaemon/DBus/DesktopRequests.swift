import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Logging
import ServiceLifecycle

/// Carries out on the app manager what arrives from the desktop: a media player command goes
/// the way of `bgctl audio ID COMMAND` (waking or launching the app), `Raise` the way of
/// `bgctl open`, a UnifiedPush message the way of `bgctl push`, a click on a notification
/// the way of `bgctl notifications ID activate`, and a button pressed on a permission prompt
/// the way of `bgctl answer`; the prompts themselves go to the desktop from here.
struct DesktopRequests: Service {
    let capabilities: Capabilities
    let apps: AppManager
    let logger: Logger

    private var players: MediaPlayers { capabilities.players }
    private var push: UnifiedPushConnector { capabilities.pushConnector }
    private var notifications: DesktopNotificationPresenter { capabilities.notificationPresenter }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await carryOutPlayerRequests() }
                group.addTask { await offerPushes() }
                group.addTask { await activateNotifications() }
                group.addTask { await showPrompts() }
                group.addTask { await answerPrompts() }
            }
        }
    }

    private func carryOutPlayerRequests() async {
        for await request in players.requests {
            do {
                switch request {
                case .command(let command):
                    // The method call was answered already (MPRIS methods return nothing), so
                    // the app's answer is not waited for here; the daemon logs it.
                    _ = try await capabilities.audio.remoteCommand(command, in: apps)
                    logger.info("MPRIS: \(command.command.rawValue) for \(command.bundle)")
                case .raise(let identifier):
                    let done = try await apps.open(identifier)
                    logger.info("MPRIS: raised: \(done.detail)")
                }
            } catch {
                logger.warning("MPRIS: \(request) not carried out: \(error)")
            }
        }
    }

    private func activateNotifications() async {
        for await activation in notifications.activations {
            // The server's `default` is the click on the notification itself: iOS's default action.
            let action =
                activation.action == DesktopNotificationPresenter.defaultAction ? nil : activation.action
            do {
                let done = try await capabilities.notifications.activate(
                    NotificationActivation(bundle: activation.bundle, request: activation.request, action: action),
                    in: apps)
                logger.info("notification \(activation.request) of \(activation.bundle): \(done.detail)")
            } catch {
                logger.warning("notification \(activation.request) of \(activation.bundle) not opened: \(error)")
            }
        }
    }

    private func showPrompts() async {
        for await event in apps.consentEvents {
            switch event {
            case .asked(let prompt): await notifications.presentPrompt(prompt)
            case .settled(let prompt): await notifications.withdrawPrompt(prompt)
            }
        }
    }

    private func answerPrompts() async {
        for await answer in notifications.answers {
            do {
                let done = try await apps.answer(answer)
                logger.info("prompt \(answer.prompt) answered \(answer.choice) on the desktop: \(done.detail)")
            } catch {
                logger.warning(
                    "prompt \(answer.prompt): \(answer.choice) pressed on the desktop, not carried out: \(error)")
            }
        }
    }

    private func offerPushes() async {
        for await event in push.events {
            switch event {
            case .message(let token, let payload, let distributor):
                do {
                    let request = PushRequest(token: token, payload: payload)
                    let result = try await capabilities.scheduling.push(request, in: apps)
                    logger.info("UnifiedPush message from \(distributor): \(result.detail)")
                } catch {
                    logger.warning("UnifiedPush message from \(distributor) not delivered: \(error)")
                }
            case .endpoint(let token, let url):
                await capabilities.scheduling.pushEndpointChanged(token: token, endpoint: url, in: apps)
            }
        }
    }
}
