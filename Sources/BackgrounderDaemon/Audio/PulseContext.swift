import CPulse

/// Something the PulseAudio context reported from its main-loop thread.
enum PulseEvent: Sendable {
    /// The context is ready: the server it reached and the protocol version it speaks.
    case ready(server: String, protocolVersion: UInt32)
    /// The context failed or was terminated.
    case failed(reason: String)
}

/// One connection to a PulseAudio server: a threaded main loop and a context.
///
/// Created by the throwing initializer, torn down in `deinit`. Callbacks arrive on
/// libpulse's thread and are forwarded to an `AsyncStream` through an `Unmanaged` box.
final class PulseContext {
    private let mainloop: OpaquePointer
    private let context: OpaquePointer
    private let box: Box

    private final class Box: Sendable {
        let events: AsyncStream<PulseEvent>.Continuation
        init(events: AsyncStream<PulseEvent>.Continuation) { self.events = events }
    }

    /// Starts connecting; progress arrives on `events`.
    /// - Parameters:
    ///   - server: The server string (`unix:/path`, `tcp:host`), or `nil` for libpulse's default.
    ///   - name: The client name the server shows.
    ///   - events: Where state changes go.
    /// - Throws: ``PulseError`` when libpulse cannot even start.
    init(server: String?, name: String, events: AsyncStream<PulseEvent>.Continuation) throws(PulseError) {
        // Everything is set up in locals first: a class whose stored properties are all set
        // runs its deinit when the initializer throws, which would free things twice.
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw PulseError(reason: "pa_threaded_mainloop_new failed")
        }
        guard let api = pa_threaded_mainloop_get_api(mainloop), let context = pa_context_new(api, name) else {
            pa_threaded_mainloop_free(mainloop)
            throw PulseError(reason: "pa_context_new failed")
        }
        let box = Box(events: events)
        pa_context_set_state_callback(context, PulseContext.stateChanged, Unmanaged.passUnretained(box).toOpaque())
        guard pa_threaded_mainloop_start(mainloop) >= 0 else {
            pa_context_unref(context)
            pa_threaded_mainloop_free(mainloop)
            throw PulseError(reason: "pa_threaded_mainloop_start failed")
        }
        pa_threaded_mainloop_lock(mainloop)
        // Never autospawn: a daemon must not start a sound server behind the user's back.
        let connected = pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil)
        let reason = connected < 0 ? String(cString: pa_strerror(pa_context_errno(context))) : ""
        pa_threaded_mainloop_unlock(mainloop)
        guard connected >= 0 else {
            pa_threaded_mainloop_stop(mainloop)
            pa_context_set_state_callback(context, nil, nil)
            pa_context_unref(context)
            pa_threaded_mainloop_free(mainloop)
            throw PulseError(reason: reason)
        }
        self.mainloop = mainloop
        self.context = context
        self.box = box
    }

    /// Runs on libpulse's thread with the main-loop lock held.
    private static let stateChanged: pa_context_notify_cb_t = { context, userdata in
        guard let context, let userdata else { return }
        let box = Unmanaged<Box>.fromOpaque(userdata).takeUnretainedValue()
        switch pa_context_get_state(context) {
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

    deinit {
        pa_threaded_mainloop_lock(mainloop)
        pa_context_set_state_callback(context, nil, nil)
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }
}

/// Why PulseAudio could not be used.
struct PulseError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
