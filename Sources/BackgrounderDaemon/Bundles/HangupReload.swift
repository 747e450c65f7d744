import Logging
import ServiceLifecycle
import UnixSignals

/// SIGHUP rescans the bundle directories, as `bgctl reload` does: what `systemctl --user
/// reload backgrounderd` sends (`ExecReload=` in contrib/systemd/backgrounderd.service).
struct HangupReload: Service {
    let registry: BundleRegistry
    let logger: Logger

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await withGracefulShutdownHandler {
            for await _ in hangups.cancelOnGracefulShutdown() {
                let result = await registry.reload()
                logger.notice("SIGHUP: bundles rescanned: \(result.loaded) loaded, \(result.refused) refused")
            }
        } onGracefulShutdown: {
        }
    }
}
