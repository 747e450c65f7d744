package import BackgrounderAppCore
import BackgrounderSystem
import ServiceLifecycle

/// Carries the audio engine's events (a stream's activity, a hang-up, the server lost or
/// back) to the audio capability, on the app manager's actor, until the daemon shuts down.
package struct AudioEventFeed: Service {
    package let engine: AudioEngine
    package let capability: AudioCapability
    package let apps: any AppCore

    package func run() async throws {
        let engine = self.engine
        let capability = self.capability
        let apps = self.apps
        await cancelWhenGracefulShutdown {
            for await event in engine.events {
                await capability.engineEvent(event, in: apps)
            }
        }
    }

    /// Creates a value from its parts.
    package init(engine: AudioEngine, capability: AudioCapability, apps: any AppCore) {
        self.engine = engine
        self.capability = capability
        self.apps = apps
    }
}
