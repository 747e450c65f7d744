import CPulse

/// What the server did to a stream's route.
package enum PulseStreamRouteEvent: Sendable, Hashable {
    /// It moved the stream to another output: at the daemon's request (`requested`, a person's
    /// `bgctl audio ID --sink`), or because its output went away (rescued to another), the
    /// default output changed, or a person moved it in a mixer.
    case moved(from: String?, to: String?, requested: Bool)
    /// It asked the stream to be quiet (`true`: a call began, by its role policy) or let it go.
    case corkRequested(Bool)
}

/// Where a playback stream's sound goes, as the server decides: its moves and its cork
/// requests, told to the engine, which says what they mean for the app.
extension PulseStream {
    func watchRoute(_ stream: OpaquePointer) {
        pa_stream_set_moved_callback(stream, Self.moved, unmanagedSelf)
        pa_stream_set_event_callback(stream, Self.serverEvent, unmanagedSelf)
    }

    func stopWatchingRoute(_ stream: OpaquePointer) {
        pa_stream_set_moved_callback(stream, nil, nil)
        pa_stream_set_event_callback(stream, nil, nil)
    }

    private var unmanagedSelf: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static let moved: pa_stream_notify_cb_t = { stream, userdata in
        guard let stream, let userdata else { return }
        Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().wasMoved(stream)
    }

    private func wasMoved(_ stream: OpaquePointer) {
        let previous = sinkName
        sinkName = pa_stream_get_device_name(stream).map { String(cString: $0) }
        let requested = expectsMove
        expectsMove = false
        onRoute(self, .moved(from: previous, to: sinkName, requested: requested))
    }

    private static let serverEvent: pa_stream_event_cb_t = { _, name, _, userdata in
        guard let name, let userdata else { return }
        let owner = Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue()
        switch String(cString: name) {
        case "request-cork": owner.onRoute(owner, .corkRequested(true))
        case "request-uncork": owner.onRoute(owner, .corkRequested(false))
        default: break
        }
    }

    /// Asks the server to move the stream to `sink`; `done` hears whether it did.
    func move(to sink: String, done: @escaping (Bool) -> Void) {
        guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY, direction == .playback else {
            return done(false)
        }
        expectsMove = true
        let box = Unmanaged.passRetained(
            PulseSuccessBox { [weak self] success in
                if !success { self?.expectsMove = false }
                done(success)
            })
        guard
            let moving = pa_context_move_sink_input_by_name(
                pa_stream_get_context(stream), pa_stream_get_index(stream), sink, PulseSuccessBox.callback,
                box.toOpaque())
        else {
            box.release()
            expectsMove = false
            return done(false)
        }
        pa_operation_unref(moving)
    }
}

/// A closure libpulse calls once with an operation's success, retained until then.
final class PulseSuccessBox {
    let body: (Bool) -> Void
    init(_ body: @escaping (Bool) -> Void) { self.body = body }

    static let callback: pa_context_success_cb_t = { _, success, userdata in
        guard let userdata else { return }
        let box = Unmanaged<PulseSuccessBox>.fromOpaque(userdata).takeRetainedValue()
        box.body(success != 0)
    }
}
