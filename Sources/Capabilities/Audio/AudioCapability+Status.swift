package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

/// `bgctl status`: the streams open, who plays and records, and whether the server is there.
extension AudioCapability {
    package func status(in apps: any AppCore) -> CapabilityStatus {
        let streams = service.engine.snapshot()
        let playing = streams.filter { $0.direction == .playback && $0.corkedBy.isEmpty }.count
        let recording = streams.filter { $0.direction == .record && $0.corkedBy.isEmpty }.count
        let corked = streams.count - playing - recording
        var summary =
            "\(streams.count) stream(s) of \(Set(streams.map(\.bundle)).count) app(s): "
            + "\(playing) playing, \(recording) recording, \(corked) corked; \(book.sessions.count) audio session(s)"
        if book.serverLost { summary += "; PulseAudio lost, apps were told" }
        return CapabilityStatus(
            name: "audio", summary: summary,
            counts: [
                "streams": streams.count, "playing": playing, "recording": recording, "corked": corked,
                "sessions": book.sessions.count,
            ])
    }
}
