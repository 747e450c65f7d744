import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
package import CPulse
import Glibc

/// One app stream: its shared ring, its notification socket, and (while the server is
/// there) its PulseAudio stream.
///
/// Touched only with the engine's main-loop lock held or on the main-loop thread, where
/// every libpulse callback runs; ``AudioEngine`` owns it and tears it down.
package final class PulseStream {
    package let id: Int
    package let bundle: BundleID
    package let direction: AudioDirection
    package let format: AudioFormat
    package let plan: AudioBufferPlan
    package let ring: AudioRing
    /// The app process allowed to attach (the one that opened the stream).

    /// The app's end of the audio socket once attached: a byte from the app means "I moved
    /// data", a byte from us "room (or data) for you"; hang-up means the app is gone.
    package private(set) var socket: Int32 = -1
    private var socketEvent: OpaquePointer?
    /// Set while the socket is not watched for input after a flood (see ``socketReady()``).
    private var doorbellBackoff: OpaquePointer?
    package private(set) var stream: OpaquePointer?

    /// Why the stream is corked: `app` (not started or paused), `interrupted`, `background`, `server`.
    package var corkedBy: Set<AudioCorkReason> = [.app]
    /// Linear volume; below 1 while ducked.
    package var volume = 1.0
    package private(set) var underruns = 0
    package private(set) var overruns = 0
    package private(set) var bytes: UInt64 = 0
    /// The server ran dry with nothing in the ring: the app stopped feeding.
    package private(set) var idle = false
    /// Its silence, for a playback stream under the policy's limit: a stream of silence long
    /// enough no longer counts as playing.
    package var silence: SilenceDetector?
    /// Everything the app wrote has been handed on and drained: a later underflow is the end
    /// of the stream, not an underrun.
    private var drained = false
    private var drainWaiters: [CheckedContinuation<Void, any Error>] = []
    private var drainRequested = false
    package private(set) var attributes: AudioBufferAttributes?

    /// The app of this playing stream sleeps until the ring runs low (it said so with its
    /// waiting flag, and the ring holds more than the low-water mark) or until a drain it
    /// asked for ends. Until then it has nothing to do for this stream, so it may be frozen
    /// (``RefillFreeze``).
    package private(set) var sleepsUntilRefill = false

    /// Checks, a while after an underrun, whether the app stopped feeding for good.
    private var idleCheck: OpaquePointer?
    private var bytesAtUnderrun: UInt64 = 0
    private let api: UnsafeMutablePointer<pa_mainloop_api>

    /// How long a playback stream may stay dry before it stops counting as playing: long
    /// enough that a hiccup (the app descheduled, an underrun it recovers from) does not cost
    /// it the `audio` assertion, short enough that an app that stopped without pausing is
    /// suspended soon.
    package static let idleAfter: pa_usec_t = 5_000_000

    /// The most read from the app's socket per wake-up. A well-behaved app sends one byte per
    /// transfer, so this many at once is a flood.
    package static let doorbellReadSize = 256
    /// How long the socket goes unwatched after a flood. The server's own requests keep the
    /// stream moving meanwhile (a doorbell only shortens the wait for them), so the cost
    /// falls on the flooding stream alone: at most one read per this interval.
    package static let doorbellBackoff: pa_usec_t = 20_000

    /// Told when the stream starts or stops counting as audio activity, or dies.
    package let onActivity: (PulseStream) -> Void
    /// Told when ``sleepsUntilRefill`` changes.
    package let onRefill: (PulseStream) -> Void
    /// Told when its silence reaches the limit (`true`) or sound comes back (`false`).
    package let onSilence: (PulseStream, Bool) -> Void
    /// Told when the server moves it to another output or asks it to be quiet
    /// (PulseStream+Routing.swift).
    package var onRoute: (PulseStream, PulseStreamRouteEvent) -> Void = { _, _ in }
    /// What the server is told of the stream: `media.role`, the app's name and id.
    package var properties: [String: String] = [:]
    /// The output (sink) it plays to, as the server last said.
    package var sinkName: String?
    /// A move the daemon asked for is under way: the next move is not a route change.
    package var expectsMove = false
    package let onHangUp: (PulseStream) -> Void
    /// Told when the app's side of the ring holds impossible indices: it wrote over the
    /// header, by bug or on purpose, and the stream cannot go on.
    package let onCorruption: (PulseStream) -> Void

    package init(
        id: Int, bundle: BundleID, direction: AudioDirection, format: AudioFormat, plan: AudioBufferPlan,
        ring: AudioRing, api: UnsafeMutablePointer<pa_mainloop_api>,
        onActivity: @escaping (PulseStream) -> Void, onRefill: @escaping (PulseStream) -> Void,
        onSilence: @escaping (PulseStream, Bool) -> Void,
        onHangUp: @escaping (PulseStream) -> Void,
        onCorruption: @escaping (PulseStream) -> Void
    ) {
        self.id = id
        self.bundle = bundle
        self.direction = direction
        self.format = format
        self.plan = plan
        self.ring = ring
        self.api = api
        self.onActivity = onActivity
        self.onRefill = onRefill
        self.onSilence = onSilence
        self.onHangUp = onHangUp
        self.onCorruption = onCorruption
    }

    /// Whether the app has started it (and not paused it).
    package var isStartedByApp: Bool { !corkedBy.contains(.app) }
    /// Whether it counts as playing or recording for the `audio` assertion.
    package var isActive: Bool {
        isStartedByApp && !idle && silence?.isSilent != true && !corkedBy.contains(.requested)
    }
    package var isCorked: Bool { !corkedBy.isEmpty }

    private var unmanaged: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    // MARK: The app's socket

    /// Takes the app's socket and watches it on the main loop.
    package func attach(socket: Int32) {
        self.socket = socket
        let flags = fcntl(socket, F_GETFL)
        _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
        let events = pa_io_event_flags_t(rawValue: PA_IO_EVENT_INPUT.rawValue | PA_IO_EVENT_HANGUP.rawValue)
        socketEvent = api.pointee.io_new(api, socket, events, Self.socketReady, unmanaged)
    }

    private static let socketReady: pa_io_event_cb_t = { _, _, _, _, userdata in
        guard let userdata else { return }
        // A hang-up closes the stream and the engine lets go of it: keep it alive until
        // this call returns.
        let stream = Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue()
        withExtendedLifetime(stream) { stream.socketReady() }
    }

    /// One bounded read per wake-up, then back to the loop: the doorbell is level-triggered,
    /// so what is left wakes the loop again after the other streams and the server had their
    /// turn. Reading until `EAGAIN` let two processes writing the same socket keep this
    /// callback (and with it the engine's lock) forever.
    private func socketReady() {
        var scratch = [UInt8](repeating: 0, count: Self.doorbellReadSize)
        let count = retryingInterrupted { read(socket, &scratch, scratch.count) }
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            // End of file or an error: the app closed the stream or died.
            onHangUp(self)
            return
        }
        if count == scratch.count { muteDoorbell() }
        switch direction {
        case .playback: pump()
        case .record: wakeConsumerIfWaiting()
        }
    }

    /// Stops watching the socket for input for ``doorbellBackoff`` (hang-ups are still
    /// seen): the app sent far more wake-ups than it has data for.
    private func muteDoorbell() {
        guard let socketEvent, doorbellBackoff == nil else { return }
        api.pointee.io_enable(socketEvent, PA_IO_EVENT_HANGUP)
        var deadline = timeval()
        pa_gettimeofday(&deadline)
        pa_timeval_add(&deadline, Self.doorbellBackoff)
        doorbellBackoff = api.pointee.time_new(api, &deadline, Self.doorbellBackoffEnded, unmanaged)
    }

    private static let doorbellBackoffEnded: pa_time_event_cb_t = { _, _, _, userdata in
        guard let userdata else { return }
        Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().unmuteDoorbell()
    }

    private func unmuteDoorbell() {
        if let doorbellBackoff { api.pointee.time_free(doorbellBackoff) }
        doorbellBackoff = nil
        guard let socketEvent else { return }
        api.pointee.io_enable(
            socketEvent, pa_io_event_flags_t(rawValue: PA_IO_EVENT_INPUT.rawValue | PA_IO_EVENT_HANGUP.rawValue))
    }

    /// One byte to the app; a full socket already holds a wake-up, so EAGAIN is fine.
    private func notifyApp() {
        guard socket >= 0 else { return }
        var byte: UInt8 = 1
        _ = send(socket, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
    }

    // MARK: The server stream

    /// Creates the PulseAudio stream on a ready context.
    /// - Returns: Why it could not, or `nil`.
    package func connect(context: OpaquePointer) -> String? {
        var spec = pa_sample_spec(
            format: format.sampleFormat == .s16le ? PA_SAMPLE_S16LE : PA_SAMPLE_FLOAT32LE,
            rate: UInt32(format.sampleRate),
            channels: UInt8(format.channels)
        )
        let name = "\(bundle) \(direction.rawValue) #\(id)"
        let list = pa_proplist_new()
        defer { pa_proplist_free(list) }
        for (key, value) in properties { pa_proplist_sets(list, key, value) }
        guard let stream = pa_stream_new_with_proplist(context, name, &spec, nil, list) else {
            return String(cString: pa_strerror(pa_context_errno(context)))
        }
        self.stream = stream
        pa_stream_set_state_callback(stream, Self.stateChanged, unmanaged)
        watchRoute(stream)
        var flags = PA_STREAM_INTERPOLATE_TIMING.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
        if isCorked { flags |= PA_STREAM_START_CORKED.rawValue }
        let unset = UInt32.max
        var attributes = pa_buffer_attr(
            maxlength: unset,
            tlength: plan.targetLength.map(UInt32.init) ?? unset,
            prebuf: plan.prebuffer.map(UInt32.init) ?? unset,
            minreq: plan.minimumRequest.map(UInt32.init) ?? unset,
            fragsize: plan.fragmentSize.map(UInt32.init) ?? unset
        )
        let result: Int32
        switch direction {
        case .playback:
            pa_stream_set_write_callback(stream, Self.writable, unmanaged)
            pa_stream_set_underflow_callback(stream, Self.underflow, unmanaged)
            pa_stream_set_overflow_callback(stream, Self.overflow, unmanaged)
            result = pa_stream_connect_playback(stream, nil, &attributes, pa_stream_flags_t(flags), nil, nil)
        case .record:
            pa_stream_set_read_callback(stream, Self.readable, unmanaged)
            result = pa_stream_connect_record(stream, nil, &attributes, pa_stream_flags_t(flags))
        }
        guard result >= 0 else {
            let reason = String(cString: pa_strerror(pa_context_errno(context)))
            disconnect()
            return reason
        }
        return nil
    }

    /// Drops the PulseAudio stream (the server went away, or the stream closes). What is in
    /// the ring stays for the next server.
    package func disconnect() {
        guard let stream else { return }
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_set_write_callback(stream, nil, nil)
        pa_stream_set_read_callback(stream, nil, nil)
        pa_stream_set_underflow_callback(stream, nil, nil)
        pa_stream_set_overflow_callback(stream, nil, nil)
        stopWatchingRoute(stream)
        if pa_stream_get_state(stream) == PA_STREAM_READY || pa_stream_get_state(stream) == PA_STREAM_CREATING {
            pa_stream_disconnect(stream)
        }
        pa_stream_unref(stream)
        self.stream = nil
        failDrain("the sound server went away")
        updateSleepsUntilRefill()
    }

    /// Closes everything: the server stream, the socket watch and the socket.
    package func close() {
        disconnect()
        if let idleCheck { api.pointee.time_free(idleCheck) }
        idleCheck = nil
        if let doorbellBackoff { api.pointee.time_free(doorbellBackoff) }
        doorbellBackoff = nil
        failDrain("the stream was closed")
        if let socketEvent { api.pointee.io_free(socketEvent) }
        socketEvent = nil
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }

    private static let stateChanged: pa_stream_notify_cb_t = { stream, userdata in
        guard let stream, let userdata else { return }
        let owner = Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue()
        if pa_stream_get_state(stream) == PA_STREAM_READY {
            owner.streamReady()
        }
    }

    private func streamReady() {
        guard let stream else { return }
        if let granted = pa_stream_get_buffer_attr(stream)?.pointee {
            attributes = AudioBufferAttributes(
                maxlength: granted.maxlength, tlength: granted.tlength, prebuf: granted.prebuf,
                minreq: granted.minreq, fragsize: granted.fragsize)
        }
        applyVolume()
        sinkName = pa_stream_get_device_name(stream).map { String(cString: $0) }
        if direction == .playback { pump() }
    }

    // MARK: Cork, volume, flush, drain

    /// Corks or uncorks the server stream to match ``corkedBy``.
    package func applyCork() {
        // Corked, the app's stream does not drain: nothing will wake it, so it must not sleep frozen.
        defer { updateSleepsUntilRefill() }
        guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
        if let operation = pa_stream_cork(stream, isCorked ? 1 : 0, nil, nil) { pa_operation_unref(operation) }
        if !isCorked && direction == .playback { pump() }
    }

    /// Sets the server stream's volume to ``volume``.
    package func applyVolume() {
        guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY,
            let context = pa_stream_get_context(stream)
        else { return }
        var volumes = pa_cvolume()
        pa_cvolume_set(&volumes, UInt32(format.channels), pa_sw_volume_from_linear(volume))
        let index = pa_stream_get_index(stream)
        let operation =
            direction == .playback
            ? pa_context_set_sink_input_volume(context, index, &volumes, nil, nil)
            : pa_context_set_source_output_volume(context, index, &volumes, nil, nil)
        if let operation { pa_operation_unref(operation) }
    }

    /// Drops what is buffered, in the ring and in the server (a seek). Playback only.
    package func flush() {
        ring.discardAll()
        if let stream, pa_stream_get_state(stream) == PA_STREAM_READY,
            let operation = pa_stream_flush(stream, nil, nil)
        {
            pa_operation_unref(operation)
        }
        wakeProducerIfWaiting()
    }

    /// Registers a waiter that is resumed once everything buffered has played.
    package func drain(_ waiter: CheckedContinuation<Void, any Error>) {
        guard stream != nil else {
            waiter.resume(throwing: AudioEngineError(.unavailable, "the sound server is not connected"))
            return
        }
        drainWaiters.append(waiter)
        drainRequested = true
        pump()
        updateSleepsUntilRefill()
    }

    private func failDrain(_ reason: String) {
        let waiters = drainWaiters
        drainWaiters = []
        defer { updateSleepsUntilRefill() }
        drainRequested = false
        waiters.forEach { $0.resume(throwing: AudioEngineError(reason)) }
    }

    private static let drainDone: pa_stream_success_cb_t = { _, success, userdata in
        guard let userdata else { return }
        let owner = Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue()
        let waiters = owner.drainWaiters
        owner.drainWaiters = []
        // Everything played: the stream is not playing any more until the app writes again.
        if success != 0 && owner.ring.readableBytes == 0 && !owner.idle {
            owner.idle = true
            owner.onActivity(owner)
        }
        owner.updateSleepsUntilRefill()
        for waiter in waiters {
            if success != 0 {
                waiter.resume()
            } else {
                waiter.resume(throwing: AudioEngineError("the server could not drain the stream"))
            }
        }
    }

    // MARK: Moving PCM

    private static let writable: pa_stream_request_cb_t = { _, _, userdata in
        guard let userdata else { return }
        Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().pump()
    }

    /// Moves as much as the server will take from the ring (playback).
    package func pump() {
        guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else { return }
        guard ring.isConsistent else {
            onCorruption(self)
            return
        }
        var writable = pa_stream_writable_size(stream)
        while writable >= format.bytesPerFrame {
            var available = ring.readableBytes
            if available == 0 {
                // Ask the app for a byte when it next writes, then look once more: it may
                // have written between the first look and the flag.
                ring.setConsumerWaiting(true)
                available = ring.readableBytes
                if available == 0 { break }
                ring.setConsumerWaiting(false)
            }
            var size = min(writable, available)
            var data: UnsafeMutableRawPointer?
            guard pa_stream_begin_write(stream, &data, &size) == 0, let data, size >= format.bytesPerFrame else {
                break
            }
            let wanted = size - size % format.bytesPerFrame
            let moved = ring.read(into: UnsafeMutableRawBufferPointer(start: data, count: wanted))
            guard moved > 0 else {
                pa_stream_cancel_write(stream)
                break
            }
            if let change = silence?.observe(UnsafeRawBufferPointer(start: data, count: moved)) {
                onSilence(self, change == .becameSilent)
            }
            pa_stream_write(stream, data, moved, nil, 0, PA_SEEK_RELATIVE)
            bytes += UInt64(moved)
            writable -= moved
            drained = false
            if idle {
                idle = false
                onActivity(self)
            }
        }
        wakeProducerIfWaiting()
        if drainRequested && ring.readableBytes == 0 {
            drainRequested = false
            drained = true
            if let operation = pa_stream_drain(stream, Self.drainDone, unmanaged) { pa_operation_unref(operation) }
        }
    }

    private func wakeProducerIfWaiting() {
        defer { updateSleepsUntilRefill() }
        guard ring.producerWaiting, ring.readableBytes <= ring.lowWater else { return }
        ring.setProducerWaiting(false)
        notifyApp()
    }

    /// Says when the app starts or stops sleeping until a refill. Called after every move out
    /// of the ring, a cork and a doorbell, so the low-water mark is seen when it is crossed.
    private func updateSleepsUntilRefill() {
        // Waiting for a drain to finish is sleeping too: the end of the drain makes the stream
        // idle, which wakes it (through the activity event) before its reply is read.
        let sleeps =
            direction == .playback && isActive && !isCorked && stream != nil
            && ((ring.producerWaiting && ring.readableBytes > ring.lowWater) || !drainWaiters.isEmpty)
        guard sleeps != sleepsUntilRefill else { return }
        sleepsUntilRefill = sleeps
        onRefill(self)
    }

    private static let underflow: pa_stream_notify_cb_t = { _, userdata in
        guard let userdata else { return }
        Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().underflowed()
    }

    private func underflowed() {
        // An app that wrote over the header stalls its stream; this is where that shows.
        guard ring.isConsistent else {
            onCorruption(self)
            return
        }
        // After a drain the server running dry is the end of the stream, not a gap.
        guard !drained else { return }
        underruns += 1
        bytesAtUnderrun = bytes
        guard !idle, idleCheck == nil else { return }
        var deadline = timeval()
        pa_gettimeofday(&deadline)
        pa_timeval_add(&deadline, Self.idleAfter)
        idleCheck = api.pointee.time_new(api, &deadline, Self.idleDeadline, unmanaged)
    }

    private static let idleDeadline: pa_time_event_cb_t = { _, _, _, userdata in
        guard let userdata else { return }
        Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().checkIdle()
    }

    private func checkIdle() {
        if let idleCheck { api.pointee.time_free(idleCheck) }
        idleCheck = nil
        // Nothing moved since the underrun: the app stopped feeding.
        guard bytes == bytesAtUnderrun, ring.readableBytes == 0, !idle else { return }
        idle = true
        onActivity(self)
    }

    private static let overflow: pa_stream_notify_cb_t = { _, userdata in
        guard let userdata else { return }
        Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().overruns += 1
    }

    private static let readable: pa_stream_request_cb_t = { _, _, userdata in
        guard let userdata else { return }
        Unmanaged<PulseStream>.fromOpaque(userdata).takeUnretainedValue().takeRecorded()
    }

    /// Moves what the server recorded into the ring (record).
    private func takeRecorded() {
        guard let stream else { return }
        var lost = false
        while true {
            var data: UnsafeRawPointer?
            var size = 0
            guard pa_stream_peek(stream, &data, &size) == 0, size > 0 else { break }
            guard ring.isConsistent else {
                pa_stream_drop(stream)
                onCorruption(self)
                return
            }
            if let data {
                let written = ring.write(UnsafeRawBufferPointer(start: data, count: size))
                bytes += UInt64(written)
                if written < size { lost = true }
            } else if data == nil {
                // A hole: the server has no data for this stretch. Silence keeps time.
                let silence = [UInt8](repeating: 0, count: size)
                let written = silence.withUnsafeBytes { ring.write($0) }
                if written < size { lost = true }
            }
            pa_stream_drop(stream)
        }
        if lost { overruns += 1 }
        wakeConsumerIfWaiting()
    }

    private func wakeConsumerIfWaiting() {
        guard ring.consumerWaiting, ring.readableBytes >= ring.lowWater else { return }
        ring.setConsumerWaiting(false)
        notifyApp()
    }

    // MARK: Reporting

    /// The server's latency for the stream, when it knows it.
    package var serverLatency: Double? {
        guard let stream, pa_stream_get_state(stream) == PA_STREAM_READY else { return nil }
        var microseconds: pa_usec_t = 0
        var negative: Int32 = 0
        guard pa_stream_get_latency(stream, &microseconds, &negative) == 0 else { return nil }
        return negative != 0 ? -Double(microseconds) / 1e6 : Double(microseconds) / 1e6
    }

    /// What `bgctl audio` shows.
    package var info: AudioStreamInfo {
        let state: String
        if stream == nil {
            state = "waiting for the server"
        } else if !isStartedByApp {
            state = "paused"
        } else if isCorked {
            state = "corked"
        } else if socket < 0 {
            state = "waiting for the app"
        } else if idle {
            state = "starved"
        } else if silence?.isSilent == true {
            state = "silent"
        } else {
            state = direction == .playback ? "playing" : "recording"
        }
        return AudioStreamInfo(
            stream: id, bundle: bundle, direction: direction, format: format, state: state,
            corkedBy: corkedBy.subtracting([.app]).sorted(), underruns: underruns, overruns: overruns,
            ringSeconds: format.seconds(forBytes: ring.readableBytes), serverLatency: serverLatency,
            volume: volume, bytes: bytes, attributes: attributes)
    }
}

/// Why the audio engine refused or failed a request.
package struct AudioEngineError: Error, CustomStringConvertible {
    /// The code an app is answered with.
    package var code: ProtocolError.Code
    package var description: String
    package init(_ code: ProtocolError.Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// The daemon's own failure.
    package init(_ description: String) { self.init(.failed, description) }

    /// The reply to the app.
    package var protocolError: ProtocolError { ProtocolError(code, description) }
}
