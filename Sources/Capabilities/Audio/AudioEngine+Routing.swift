package import BackgrounderCore
import BackgrounderProtocol
import CPulse

/// Routes: what the server's moves and cork requests mean for an app, and a person moving an
/// app's sound (`bgctl audio ID --sink`). On the main-loop thread, with the lock held, like
/// every libpulse callback.
extension AudioEngine {
    /// A stream was moved or asked to be quiet by the server.
    func routeEvent(_ stream: PulseStream, _ event: PulseStreamRouteEvent) {
        switch event {
        case .moved(let from, let to, let requested):
            guard !requested else {
                let change = AudioRouteChange(
                    reason: .override, stream: stream.id, previousOutput: from, output: to, paused: false)
                return yield(.routeChanged(bundle: stream.bundle, change: change))
            }
            routeMoved(stream.id, from: from, to: to)
        case .corkRequested(let corked):
            if corked { stream.corkedBy.insert(.requested) } else { stream.corkedBy.remove(.requested) }
            stream.applyCork()
            yield(.serverCork(stream: stream.id, bundle: stream.bundle, corked: corked))
            yield(.activity(stream: stream.id, bundle: stream.bundle, active: stream.isActive))
        }
    }

    /// The server moved a stream. Its output went away (unplugged headphones, as iOS sees it):
    /// the stream is paused and the app told `oldDeviceUnavailable`, and it plays to the output
    /// the server rescued it to once started again. The old output still there and the stream
    /// now on the default: a new output became the default and the sound followed it
    /// (headphones plugged in), `newDeviceAvailable`, and it plays on. Otherwise a person moved
    /// it (a mixer): `override`, and it plays on.
    private func routeMoved(_ id: Int, from: String?, to: String?) {
        guard let context = serverContext else { return }
        ServerFacts.query(context, sink: from) { [unowned self] previousExists, defaultSink in
            guard let stream = stream(id) else { return }
            let lost = !previousExists
            if lost {
                stream.corkedBy.insert(.app)
                stream.applyCork()
            }
            let change = AudioRouteChange(
                reason: lost ? .oldDeviceUnavailable : to != nil && to == defaultSink ? .newDeviceAvailable : .override,
                stream: id, previousOutput: from, output: to,
                paused: lost)
            yield(.routeChanged(bundle: stream.bundle, change: change))
            if lost { yield(.activity(stream: id, bundle: stream.bundle, active: stream.isActive)) }
        }
    }

    /// Sends every playback stream of an app to `sink`.
    /// - Returns: How many streams moved.
    /// - Throws: ``AudioEngineError`` when the app has no playback stream on the server, or the
    ///   server refused (no such sink).
    package func move(_ bundle: BundleID, to sink: String) async throws -> Int {
        let moves: [Bool] = try await withCheckedThrowingContinuation { continuation in
            lock()
            defer { unlock() }
            let own = streamsOf(bundle).filter { $0.direction == .playback && $0.stream != nil }
            guard !own.isEmpty else {
                continuation.resume(
                    throwing: AudioEngineError(.notFound, "\(bundle) has no playback stream on the sound server"))
                return
            }
            var results: [Bool] = []
            for stream in own {
                stream.move(to: sink) { moved in
                    results.append(moved)
                    if results.count == own.count { continuation.resume(returning: results) }
                }
            }
        }
        guard moves.allSatisfy({ $0 }) else {
            throw AudioEngineError(.notFound, "the sound server has no sink '\(sink)' (pactl list short sinks)")
        }
        return moves.count
    }
}

/// One question to the server about outputs: whether a sink exists, and which is the default.
private final class ServerFacts {
    let sink: String?
    let done: (Bool, String?) -> Void
    var exists = false

    private init(sink: String?, done: @escaping (Bool, String?) -> Void) {
        self.sink = sink
        self.done = done
    }

    /// Asks; `done` runs on the main-loop thread with the answers.
    static func query(_ context: OpaquePointer, sink: String?, done: @escaping (Bool, String?) -> Void) {
        let facts = Unmanaged.passRetained(ServerFacts(sink: sink, done: done))
        guard let sink else {
            askDefault(context, facts)
            return
        }
        guard let operation = pa_context_get_sink_info_by_name(context, sink, sinkInfo, facts.toOpaque()) else {
            askDefault(context, facts)
            return
        }
        pa_operation_unref(operation)
    }

    private static let sinkInfo: pa_sink_info_cb_t = { context, info, eol, userdata in
        guard let context, let userdata else { return }
        let facts = Unmanaged<ServerFacts>.fromOpaque(userdata)
        if info != nil { facts.takeUnretainedValue().exists = true }
        guard eol != 0 else { return }
        askDefault(context, facts)
    }

    private static func askDefault(_ context: OpaquePointer, _ facts: Unmanaged<ServerFacts>) {
        guard let operation = pa_context_get_server_info(context, serverInfo, facts.toOpaque()) else {
            let value = facts.takeRetainedValue()
            value.done(value.exists, nil)
            return
        }
        pa_operation_unref(operation)
    }

    private static let serverInfo: pa_server_info_cb_t = { _, info, userdata in
        guard let userdata else { return }
        let facts = Unmanaged<ServerFacts>.fromOpaque(userdata).takeRetainedValue()
        facts.done(facts.exists, info?.pointee.default_sink_name.map { String(cString: $0) })
    }
}
