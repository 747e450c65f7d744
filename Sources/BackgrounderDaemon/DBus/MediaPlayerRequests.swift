import BackgrounderProtocol
import Logging
import ServiceLifecycle

/// Carries out what people ask of MPRIS players on the app manager: a command goes the way of
/// `bgctl audio ID COMMAND` (waking or launching the app), `Raise` the way of `bgctl open`.
struct MediaPlayerRequests: Service {
    let players: MediaPlayers
    let apps: AppManager
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await request in players.requests {
                do {
                    switch request {
                    case .command(let command):
                        let done = try await apps.audio { try $0.remoteCommand(command, in: $1) }
                        logger.info("MPRIS: \(done.detail)")
                    case .raise(let identifier):
                        let done = try await apps.open(identifier)
                        logger.info("MPRIS: raised: \(done.detail)")
                    }
                } catch {
                    logger.warning("MPRIS: \(request) not carried out: \(error)")
                }
            }
        }
    }
}
