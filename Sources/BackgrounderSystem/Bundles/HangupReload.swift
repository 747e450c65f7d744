package import Logging
import ServiceLifecycle
import UnixSignals

/// SIGHUP rescans the bundle directories, as `bgctl reload` does: what `systemctl --user
/// reload backgrounderd` sends (`ExecReload=` in contrib/systemd/backgrounderd.service).
package struct HangupReload: Service {
    package let registry: BundleRegistry
    package let logger: Logger

    package func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await withGracefulShutdownHandler {
            for await _ in hangups.cancelOnGracefulShutdown() {
                let result = await registry.reload()
                logger.notice("SIGHUP: bundles rescanned: \(result.loaded) loaded, \(result.refused) refused")
            }
        } onGracefulShutdown: {
        }
    }

    /// Creates a value from its parts.
    package init(registry: BundleRegistry, logger: Logger) {
        self.registry = registry
        self.logger = logger
    }
}
