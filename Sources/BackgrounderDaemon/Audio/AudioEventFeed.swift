import BackgrounderSystem
import ServiceLifecycle

/// Carries the audio engine's events (a stream's activity, a hang-up, the server lost or
/// back) to the audio capability, on the app manager's actor, until the daemon shuts down.
struct AudioEventFeed: Service {
    let engine: AudioEngine
    let capability: AudioCapability
    let apps: any AppCore

    func run() async throws {
        let engine = self.engine
        let capability = self.capability
        let apps = self.apps
        await cancelWhenGracefulShutdown {
            for await event in engine.events {
                await capability.engineEvent(event, in: apps)
            }
        }
    }
}
