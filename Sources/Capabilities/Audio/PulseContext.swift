import BackgrounderAppCore
import BackgrounderSystem
package import CPulse

/// Something the PulseAudio context reported from its main-loop thread.
package enum PulseEvent: Sendable {
    /// The context is ready: the server it reached and the protocol version it speaks.
    case ready(server: String, protocolVersion: UInt32)
    /// The context failed or was terminated.
    case failed(reason: String)
}

/// One connection attempt to a PulseAudio server, on the audio engine's main loop.
///
/// Every call, `init` and ``disconnect()`` included, is made with the main-loop lock held
/// (or on the main-loop thread); ``AudioEngine`` sees to that.
package final class PulseContext {
    /// The libpulse context.
    package let context: OpaquePointer
    private let box: Box
    private let onStateChange: (PulseContext, pa_context_state_t) -> Void

    private final class Box {
        let events: AsyncStream<PulseEvent>.Continuation
        weak var owner: PulseContext?
        init(events: AsyncStream<PulseEvent>.Continuation) { self.events = events }
    }

    /// Starts connecting; progress arrives on `events`, and `onStateChange` hears every state
    /// change first (on the main-loop thread), so the engine can build or drop its streams.
    /// - Throws: ``PulseError`` when libpulse refuses at once.
    package init(
        api: UnsafeMutablePointer<pa_mainloop_api>,
        server: String?,
        name: String,
        events: AsyncStream<PulseEvent>.Continuation,
        onStateChange: @escaping (PulseContext, pa_context_state_t) -> Void
    ) throws(PulseError) {
        guard let context = pa_context_new(api, name) else { throw PulseError(reason: "pa_context_new failed") }
        let box = Box(events: events)
        pa_context_set_state_callback(context, PulseContext.stateChanged, Unmanaged.passUnretained(box).toOpaque())
        // Never autospawn: a daemon must not start a sound server behind the user's back.
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            let reason = String(cString: pa_strerror(pa_context_errno(context)))
            pa_context_set_state_callback(context, nil, nil)
            pa_context_unref(context)
            throw PulseError(reason: reason)
        }
        self.context = context
        self.box = box
        self.onStateChange = onStateChange
        box.owner = self
    }

    /// Runs on libpulse's thread with the main-loop lock held.
    private static let stateChanged: pa_context_notify_cb_t = { context, userdata in
        guard let context, let userdata else { return }
        let box = Unmanaged<Box>.fromOpaque(userdata).takeUnretainedValue()
        let state = pa_context_get_state(context)
        if let owner = box.owner { owner.onStateChange(owner, state) }
        switch state {
        case PA_CONTEXT_READY:
            let server = pa_context_get_server(context).map { String(cString: $0) } ?? "unknown"
            let version = pa_context_get_server_protocol_version(context)
            box.events.yield(.ready(server: server, protocolVersion: version))
        case PA_CONTEXT_FAILED:
            box.events.yield(.failed(reason: String(cString: pa_strerror(pa_context_errno(context)))))
        case PA_CONTEXT_TERMINATED:
            box.events.yield(.failed(reason: "connection terminated"))
        default:
            break
        }
    }

    /// Whether the context is ready for streams.
    package var isReady: Bool { pa_context_get_state(context) == PA_CONTEXT_READY }

    /// Disconnects and frees the context; call once, with the lock held.
    package func disconnect() {
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        box.events.finish()
    }
}

/// Why PulseAudio could not be used.
package struct PulseError: Error, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
}
