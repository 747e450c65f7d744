package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

/// `bgctl status`: the streams open and what each is doing (as `bgctl audio` names it), the
/// active sessions, and whether the server is there.
extension AudioCapability {
    package func status(in apps: any AppCore) -> CapabilityStatus {
        let streams = service.engine.snapshot()
        let playing = streams.count { $0.state == "playing" }
        let recording = streams.count { $0.state == "recording" }
        let paused = streams.count { $0.state == "paused" }
        // Corked by the server or another app, starved, or waiting for the app or the server.
        let held = streams.count - playing - recording - paused
        let sessions = book.sessions.values.count(where: \.isActive)
        var summary =
            "\(streams.count) stream(s) of \(Set(streams.map(\.bundle)).count) app(s): \(playing) playing, "
            + "\(recording) recording, \(paused) paused, \(held) corked or waiting; \(sessions) active audio session(s)"
        if book.serverLost { summary += "; PulseAudio lost, apps were told" }
        return CapabilityStatus(
            name: "audio", summary: summary,
            counts: [
                "streams": streams.count, "playing": playing, "recording": recording, "paused": paused,
                "corkedOrWaiting": held, "activeSessions": sessions,
            ])
    }
}
