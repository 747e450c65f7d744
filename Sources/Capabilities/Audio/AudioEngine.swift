import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import CPulse
import Foundation
package import Logging

/// What the engine tells the app manager.
package enum AudioEngineEvent: Sendable {
    /// A stream started or stopped counting as audio activity (playing or recording).
    case activity(stream: Int, bundle: BundleID, active: Bool)
    /// A playback stream's silence reached the policy's limit (it no longer counts as
    /// playing), or sound came back after it.
    case silence(stream: Int, bundle: BundleID, silent: Bool, limit: Duration)
    /// Where a stream's sound goes changed; with ``AudioRouteChange/paused``, the engine paused it.
    case routeChanged(bundle: BundleID, change: AudioRouteChange)
    /// The sound server asked a stream to be quiet (`true`), or let it go.
    case serverCork(stream: Int, bundle: BundleID, corked: Bool)
    /// A playback stream's app went to sleep until its ring runs low, or must run again
    /// (``AudioEngine/sleepsUntilRefill(_:)`` says which, now).
    case refill(bundle: BundleID)
    /// The app hung up its stream's socket (it closed it, exited or crashed).
    case hungUp(stream: Int, bundle: BundleID)
    /// The sound server went away; every stream waits for it.
    case serverLost(reason: String)
    /// The sound server is back and the streams are re-created.
    case serverBack
}

/// The daemon's audio engine: one libpulse threaded main loop for the daemon's life, the
/// connection to the server on it, and every app stream.
///
/// Threading: the main loop's lock is the engine's lock. Every mutable member is touched
/// only with it held, either by a method below (which takes it) or by a libpulse callback
/// (which runs on the main-loop thread, where libpulse holds it). That is why the class can
/// be `@unchecked Sendable`; nothing here blocks while holding the lock.
package final class AudioEngine: @unchecked Sendable {
    private let mainloop: OpaquePointer
    private let api: UnsafeMutablePointer<pa_mainloop_api>
    private let logger: Logger
    /// Activity and server changes, in order.
    package let events: AsyncStream<AudioEngineEvent>
    private let eventSink: AsyncStream<AudioEngineEvent>.Continuation

    private var context: PulseContext?
    private var streams: [Int: PulseStream] = [:]
    private var nextStream = 1
    private var pending: [String: (stream: Int, deadline: ContinuousClock.Instant)] = [:]
    private var serverUp = false

    /// How long an app has to fetch its ring after `AUDIO_STREAM_OPEN`.
    package static let attachDeadline: Duration = .seconds(10)

    /// Starts the main loop.
    /// - Throws: ``PulseError`` when libpulse cannot start one.
    package init(logger: Logger) throws(PulseError) {
        guard let mainloop = pa_threaded_mainloop_new() else {
            throw PulseError(reason: "pa_threaded_mainloop_new failed")
        }
        guard let api = pa_threaded_mainloop_get_api(mainloop), pa_threaded_mainloop_start(mainloop) >= 0 else {
            pa_threaded_mainloop_free(mainloop)
            throw PulseError(reason: "pa_threaded_mainloop_start failed")
        }
        pa_threaded_mainloop_set_name(mainloop, "backgrounderd-audio")
        self.mainloop = mainloop
        self.api = api
        self.logger = logger
        (events, eventSink) = AsyncStream.makeStream()
    }

    deinit {
        pa_threaded_mainloop_lock(mainloop)
        for stream in streams.values { stream.close() }
        streams.removeAll()
        context?.disconnect()
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
        eventSink.finish()
    }

    // For the extensions, which cannot see private members: each with the lock held.
    func lock() { pa_threaded_mainloop_lock(mainloop) }
    func unlock() { pa_threaded_mainloop_unlock(mainloop) }
    func yield(_ event: AudioEngineEvent) { eventSink.yield(event) }
    var serverContext: OpaquePointer? { context?.context }
    func stream(_ id: Int) -> PulseStream? { streams[id] }
    func streamsOf(_ bundle: BundleID) -> [PulseStream] {
        streams.values.filter { $0.bundle == bundle }.sorted { $0.id < $1.id }
    }

    private func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    // MARK: The server connection

    /// Starts connecting to a server, dropping any previous connection.
    /// - Parameter events: Where the connection's progress goes.
    package func connect(server: String?, events: AsyncStream<PulseEvent>.Continuation) throws(PulseError) {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        dropContext()
        context = try PulseContext(api: api, server: server, name: "backgrounderd", events: events) {
            [unowned self] context, state in
            contextChanged(context, state)
        }
    }

    /// Drops the connection (after it failed, or at shutdown).
    package func disconnect() {
        withLock { dropContext() }
    }

    private func dropContext() {
        for stream in streams.values { stream.disconnect() }
        context?.disconnect()
        context = nil
    }

    /// On the main-loop thread.
    private func contextChanged(_ changed: PulseContext, _ state: pa_context_state_t) {
        guard changed === context else { return }
        switch state {
        case PA_CONTEXT_READY:
            for stream in streams.values.sorted(by: { $0.id < $1.id }) {
                stream.corkedBy.remove(.server)
                connect(stream, to: changed.context)
            }
            if !serverUp {
                serverUp = true
                eventSink.yield(.serverBack)
            }
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            for stream in streams.values {
                stream.disconnect()
                stream.corkedBy.insert(.server)
            }
            if serverUp {
                serverUp = false
                let reason = String(cString: pa_strerror(pa_context_errno(changed.context)))
                eventSink.yield(.serverLost(reason: reason))
            }
        default:
            break
        }
    }

    private func connect(_ stream: PulseStream, to context: OpaquePointer) {
        if let failure = stream.connect(context: context) {
            logger.error("cannot create the server stream for \(stream.bundle) #\(stream.id): \(failure)")
        }
    }

    // MARK: Streams

    /// Creates a stream and its ring; the app fetches the ring with the returned token.
    /// - Returns: The stream's number, its attach token and its plan.
    package func open(
        bundle: BundleID, direction: AudioDirection, format: AudioFormat, plan: AudioBufferPlan,
        corkedBy: Set<AudioCorkReason>, volume: Double, silenceLimit: Duration? = nil,
        properties: [String: String] = [:]
    ) throws -> (stream: Int, token: String) {
        let ring = try AudioRing.create(
            capacity: plan.ringCapacity, frameBytes: format.bytesPerFrame, lowWater: plan.lowWater,
            name: "backgrounderd-\(bundle)")
        return withLock {
            let id = nextStream
            nextStream += 1
            let stream = PulseStream(
                id: id, bundle: bundle, direction: direction, format: format, plan: plan, ring: ring,
                api: api,
                onActivity: { [unowned self] stream in
                    eventSink.yield(.activity(stream: stream.id, bundle: stream.bundle, active: stream.isActive))
                },
                onRefill: { [unowned self] stream in eventSink.yield(.refill(bundle: stream.bundle)) },
                onSilence: { [unowned self] stream, silent in
                    eventSink.yield(
                        .silence(stream: stream.id, bundle: stream.bundle, silent: silent, limit: silenceLimit ?? .zero)
                    )
                },
                onHangUp: { [unowned self] stream in
                    close(lockHeld: stream.id)
                    eventSink.yield(.hungUp(stream: stream.id, bundle: stream.bundle))
                },
                onCorruption: { [unowned self] stream in
                    logger.warning(
                        "\(stream.bundle): stream \(stream.id)'s ring holds impossible indices (the app wrote over its header); closing it"
                    )
                    close(lockHeld: stream.id)
                    eventSink.yield(.hungUp(stream: stream.id, bundle: stream.bundle))
                })
            // Only what is played: a recorder in a quiet room records silence rightly.
            if direction == .playback, let silenceLimit {
                stream.silence = SilenceDetector(limit: silenceLimit, format: format)
            }
            stream.properties = properties
            stream.onRoute = { [unowned self] stream, event in routeEvent(stream, event) }
            stream.corkedBy = corkedBy.union([.app])
            if !serverUp { stream.corkedBy.insert(.server) }
            stream.volume = volume
            streams[id] = stream
            let token = Self.makeToken()
            let now = ContinuousClock.now
            pending = pending.filter { $0.value.deadline > now }
            pending[token] = (id, now + Self.attachDeadline)
            if let context, context.isReady { connect(stream, to: context.context) }
            return (id, token)
        }
    }

    /// Hands a stream's ring to the app that connected to the audio socket with its token.
    /// - Parameters:
    ///   - token: What the app sent.
    ///   - owner: The app the connecting process belongs to, as the kernel says (its cgroup).
    ///   - socket: The connection, which becomes the stream's notification channel (the
    ///     engine owns it from here on when this succeeds).
    /// - Returns: The ring's memfd to send.
    /// - Throws: ``AudioEngineError`` saying why the attach is refused.
    package func attach(token: String, owner: BundleID, socket: Int32) throws(AudioEngineError) -> Int32 {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let entry = pending.removeValue(forKey: token), entry.deadline > .now else {
            throw AudioEngineError("unknown or expired token")
        }
        guard let stream = streams[entry.stream] else { throw AudioEngineError("the stream was closed") }
        // The token went to the app alone; a process of another app that got hold of it
        // still may not have the ring.
        guard stream.bundle == owner else {
            throw AudioEngineError("stream \(entry.stream) is not \(owner)'s")
        }
        stream.attach(socket: socket)
        return stream.ring.descriptor
    }

    /// Runs `body` on a stream of `bundle`, with the lock held.
    /// - Throws: ``AudioEngineError`` when the app has no such stream.
    private func withStream<T>(_ id: Int, of bundle: BundleID, _ body: (PulseStream) throws -> T) throws -> T {
        try withLock {
            guard let stream = streams[id], stream.bundle == bundle else {
                throw AudioEngineError(.notFound, "\(bundle) has no audio stream \(id)")
            }
            return try body(stream)
        }
    }

    /// The app starts or pauses a stream.
    /// - Returns: Whether the stream now counts as active.
    package func setStarted(_ id: Int, of bundle: BundleID, _ started: Bool) throws -> Bool {
        try withStream(id, of: bundle) { stream in
            if started { stream.corkedBy.remove(.app) } else { stream.corkedBy.insert(.app) }
            stream.applyCork()
            return stream.isActive
        }
    }

    /// Drops what a playback stream has buffered.
    package func flush(_ id: Int, of bundle: BundleID) throws {
        try withStream(id, of: bundle) { stream in
            guard stream.direction == .playback else {
                throw AudioEngineError(.invalidState, "only playback streams flush")
            }
            stream.flush()
        }
    }

    /// Returns once everything a playback stream has buffered has played.
    package func drain(_ id: Int, of bundle: BundleID) async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            do {
                try withStream(id, of: bundle) { stream in
                    guard stream.direction == .playback, !stream.isCorked else {
                        throw AudioEngineError(
                            .invalidState, "stream \(id) is paused or not playback; nothing would drain")
                    }
                    stream.drain(waiter)
                }
            } catch {
                waiter.resume(throwing: error)
            }
        }
    }

    /// Closes a stream.
    package func close(_ id: Int, of bundle: BundleID) throws {
        try withStream(id, of: bundle) { _ in close(lockHeld: id) }
    }

    /// Closes every stream of an app (it exited).
    package func closeAll(of bundle: BundleID) {
        withLock {
            for id in streams.values.filter({ $0.bundle == bundle }).map(\.id) { close(lockHeld: id) }
        }
    }

    private func close(lockHeld id: Int) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        stream.close()
        pending = pending.filter { $0.value.stream != id }
    }

    /// Sets the policy's reasons to cork an app's streams and their volume.
    package func apply(to bundle: BundleID, interrupted: Bool, background: Bool, volume: Double) {
        withLock {
            for stream in streams.values where stream.bundle == bundle {
                let before = stream.corkedBy
                if interrupted { stream.corkedBy.insert(.interrupted) } else { stream.corkedBy.remove(.interrupted) }
                if background { stream.corkedBy.insert(.background) } else { stream.corkedBy.remove(.background) }
                if stream.corkedBy != before { stream.applyCork() }
                if stream.volume != volume {
                    stream.volume = volume
                    stream.applyVolume()
                }
            }
        }
    }

    /// Whether any of an app's streams counts as playing or recording.
    package func isActive(_ bundle: BundleID) -> Bool {
        withLock { streams.values.contains { $0.bundle == bundle && $0.isActive } }
    }

    /// Whether the app sleeps until one of its streams runs low: it has a stream that plays
    /// and is full enough, and each of its streams that plays is (``PulseStream/sleepsUntilRefill``).
    package func sleepsUntilRefill(_ bundle: BundleID) -> Bool {
        withLock {
            let own = streams.values.filter { $0.bundle == bundle && $0.isActive }
            return !own.isEmpty && own.allSatisfy(\.sleepsUntilRefill)
        }
    }

    /// What `bgctl audio` shows.
    package func snapshot(bundle: BundleID? = nil) -> [AudioStreamInfo] {
        withLock {
            streams.values.filter { bundle == nil || $0.bundle == bundle }.sorted { $0.id < $1.id }.map(\.info)
        }
    }

    /// 128 random bits, hex.
    private static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
    }
}
