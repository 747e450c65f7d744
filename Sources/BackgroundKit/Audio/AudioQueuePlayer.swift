public import BackgrounderCore
public import BackgrounderProtocol
import Foundation

/// Plays files one after another, as `AVQueuePlayer`: WAV, FLAC, Ogg and (where the
/// installed libsndfile reads it) MP3, decoded by libsndfile and written to an
/// ``AudioOutput``. Files of the same format follow each other without a gap. It repeats
/// and shuffles as a music app does (`MPRepeatType`, `MPShuffleType`), and has a volume of
/// its own, as `AVPlayer.volume`.
///
/// Every operation is queued behind the previous one, so a skip or a seek never races the
/// task that feeds the stream (the stream's ring has exactly one writer).
@MainActor
public final class AudioQueuePlayer {
    /// The files, in the order they play (shuffled while ``shuffleMode`` is `items`).
    public private(set) var items: [String] = []
    /// What it repeats: nothing, the item, or the queue.
    public private(set) var repeatMode = RepeatMode.off
    /// Whether the items play in a random order.
    public private(set) var shuffleMode = ShuffleMode.off
    /// The player's own volume, 0 to 1: samples are scaled by it as they are decoded.
    public private(set) var volume = 1.0
    /// The item playing or paused, if any.
    public private(set) var currentIndex: Int?
    /// Whether it is playing (rather than paused, stopped or interrupted).
    public private(set) var isPlaying = false
    /// The item the commands given so far lead to, ahead of ``currentIndex`` while they are
    /// still being carried out (opening a file takes a moment): `nil` when they lead to
    /// nothing playing or paused. What a remote command handler asks (is there a next item?).
    public private(set) var queuedIndex: Int?
    /// The number of items the commands given so far lead to, ahead of ``items``.
    public private(set) var queuedCount = 0
    /// Called on every change of item or of playing state.
    public var onChange: (() -> Void)?
    /// Called when a file cannot be played (it is skipped) or the stream fails.
    public var onError: ((String) -> Void)?

    private var output: AudioOutput?
    private var feeder: Task<Void, Never>?
    private var generation = 0
    private var work: Task<Void, Never>?
    /// Operations enqueued and not yet finished; at 0 the queued state is the actual one.
    private var unfinished = 0
    private var interruptedWhilePlaying = false
    private var current: (title: String, artist: String?, album: String?, duration: Double, rate: Int)?
    /// The items in the order they were given, and each played item's place there, so
    /// shuffling can be undone.
    private var order: [String] = []
    private var positions: [Int] = []
    private let progress = Progress()
    private let bufferDuration: Double
    /// Where playback stood when the daemon dropped the stream (it went away), to go on from
    /// once media services are reset.
    private var lost: (index: Int, frame: Int64, playing: Bool)?

    /// Frames handed to the stream since the item started, and the gain samples are scaled
    /// by, shared with the feeding task.
    private final class Progress: Sendable {
        let frames = Locked<Int64>(0)
        let gain = Locked<Double>(1)
    }

    /// Creates a player.
    /// - Parameter bufferDuration: Seconds of audio kept in the shared buffer (how long the
    ///   app may be descheduled without a gap).
    public init(bufferDuration: Double = AudioBufferPlan.defaultSeconds) {
        self.bufferDuration = bufferDuration
        AudioSession.shared.addRouteChangeObserver { [weak self] change in
            self?.routeChanged(change)
        }
        AudioSession.shared.addInterruptionObserver { [weak self] interruption in
            self?.interrupted(interruption)
        }
        AudioSession.shared.addMediaServicesResetObserver { [weak self] in
            self?.mediaServicesWereReset()
        }
    }

    /// Seconds into the current item, counting only what has left the shared buffer.
    public var elapsed: Double {
        guard let current, let output else { return 0 }
        let queued = Double(progress.frames.withLock { $0 }) / Double(current.rate)
        return max(0, queued - output.bufferedDuration)
    }

    /// What is playing, as the now-playing center shows it.
    public var nowPlaying: NowPlayingInfo? {
        guard let index = currentIndex, let current else { return nil }
        var info = NowPlayingInfo(
            title: current.title, artist: current.artist, album: current.album, path: items[index],
            elapsed: elapsed, duration: current.duration, playing: isPlaying, index: index, count: items.count)
        info.describeQueue(items)
        info.volume = volume
        info.repeatMode = repeatMode
        info.shuffleMode = shuffleMode
        return info
    }

    // MARK: Commands

    /// Replaces the queue and plays from `index` (while shuffling, that item first and the
    /// rest in a random order).
    public func play(_ items: [String], from index: Int = 0) {
        queuedCount = items.count
        queuedIndex = items.indices.contains(index) ? (shuffleMode == .items ? 0 : index) : nil
        enqueue { player in
            player.order = items
            player.positions = Array(items.indices)
            player.items = items
            guard player.shuffleMode == .items, items.indices.contains(index) else {
                await player.start(at: index, flush: true)
                return
            }
            player.shuffle(keeping: index)
            await player.start(at: 0, flush: true)
        }
    }

    /// Plays (or resumes) the current item, or the first.
    public func play() {
        if queuedIndex == nil, queuedCount > 0 { queuedIndex = 0 }
        enqueue { player in
            if let lost = player.lost {
                // The stream was lost with the daemon while paused: on from the same place.
                player.lost = nil
                await player.start(at: lost.index, frame: lost.frame, flush: true)
                return
            }
            guard player.output != nil, player.currentIndex != nil else {
                await player.start(at: 0, flush: true)
                return
            }
            player.resumeOutput()
        }
    }

    /// Pauses, keeping the place and what is buffered.
    public func pause() {
        enqueue { player in
            player.interruptedWhilePlaying = false
            guard player.isPlaying, let output = player.output else { return }
            do {
                try output.pause()
            } catch {
                player.onError?("pause: \(error)")
            }
            player.isPlaying = false
            player.changed()
        }
    }

    /// Skips to the next item: after the last, the first again while repeating the queue,
    /// otherwise it stops.
    public func next() {
        let following = (queuedIndex ?? -1) + 1
        queuedIndex = following < queuedCount ? following : (repeatMode == .all && queuedCount > 0 ? 0 : nil)
        enqueue { player in
            let following = (player.currentIndex ?? -1) + 1
            let wraps = player.repeatMode == .all && following == player.items.count
            await player.start(at: wraps ? 0 : following, flush: true)
        }
    }

    /// Whether ``next()`` has somewhere to go from what the commands so far lead to.
    public var hasNext: Bool {
        guard let index = queuedIndex else { return false }
        return index + 1 < queuedCount || repeatMode == .all
    }

    /// Sets what it repeats; it applies when the current item ends.
    public func setRepeatMode(_ mode: RepeatMode) {
        repeatMode = mode
        changed()
    }

    /// Shuffles the queue, the current item first, or puts it back in its order, the
    /// current item playing on in either case.
    public func setShuffleMode(_ mode: ShuffleMode) {
        guard mode != shuffleMode else { return }
        shuffleMode = mode
        if mode == .items, queuedIndex != nil { queuedIndex = 0 }
        enqueue { player in
            // The item playing, and the one kept from a lost stream, keep their places in the
            // new order.
            let playing = player.currentIndex.map { player.positions[$0] }
            let lost = player.lost.map { player.positions[$0.index] }
            switch mode {
            case .items:
                player.shuffle(keeping: player.currentIndex ?? player.lost?.index)
            case .off:
                player.items = player.order
                player.positions = Array(player.order.indices)
            }
            player.currentIndex = playing.flatMap { player.positions.firstIndex(of: $0) }
            if let lost, let index = player.positions.firstIndex(of: lost) { player.lost?.index = index }
            player.changed()
        }
    }

    /// Puts the item at `index` of the play order first, and the rest in a random order.
    private func shuffle(keeping index: Int?) {
        let kept = index.map { positions[$0] }
        positions = (kept.map { [$0] } ?? []) + order.indices.filter { $0 != kept }.shuffled()
        items = positions.map { order[$0] }
    }

    /// Sets the player's volume, 0 to 1. What is already buffered is decoded again at the new
    /// level, so the change is heard at once rather than seconds later.
    public func setVolume(_ level: Double) {
        let level = min(1, max(0, level.isFinite ? level : 1))
        guard level != volume else { return }
        volume = level
        progress.gain.withLock { $0 = level }
        changed()
        enqueue { player in
            // A burst of changes (a volume slider) decodes again once, at the last level.
            guard player.volume == level, player.isPlaying, let index = player.currentIndex,
                let rate = player.current?.rate
            else { return }
            await player.start(at: index, frame: Int64(player.elapsed * Double(rate)), flush: true)
        }
    }

    /// Goes back to the previous item (or the start of the first).
    public func previous() {
        if queuedCount > 0 { queuedIndex = max(0, (queuedIndex ?? 0) - 1) }
        enqueue { player in await player.start(at: max(0, (player.currentIndex ?? 0) - 1), flush: true) }
    }

    /// Moves within the current item.
    public func seek(to seconds: Double) {
        enqueue { player in
            guard let index = player.currentIndex, let rate = player.current?.rate else { return }
            await player.start(at: index, frame: Int64(max(0, seconds) * Double(rate)), flush: true)
        }
    }

    private func enqueue(_ operation: @escaping @MainActor (AudioQueuePlayer) async -> Void) {
        let previous = work
        unfinished += 1
        work = Task { [weak self] in
            await previous?.value
            guard let self else { return }
            await operation(self)
            unfinished -= 1
            if unfinished == 0 {
                queuedIndex = currentIndex
                queuedCount = items.count
            }
        }
    }

    // MARK: Feeding

    /// Stops the feeding task and waits for it, so the ring has no writer.
    private func stopFeeding() async {
        generation += 1
        feeder?.cancel()
        await feeder?.value
        feeder = nil
    }

    private func start(at index: Int, frame: Int64 = 0, flush: Bool, quietly: Bool = false) async {
        await stopFeeding()
        guard items.indices.contains(index) else {
            await finish()
            return
        }
        let path = items[index]
        let file: AudioFile
        do {
            file = try AudioFile(path: path)
            if frame > 0 { try file.seek(toFrame: frame) }
        } catch {
            onError?("\(error); skipping it")
            await start(at: index + 1, flush: flush)
            return
        }
        let format = AudioFormat(sampleFormat: .s16le, sampleRate: file.sampleRate, channels: file.outputChannels)
        do {
            if let output, output.format == format {
                if flush { try output.flush() }
            } else {
                output?.close()
                output = nil
                output = try AudioOutput(format: format, bufferDuration: bufferDuration)
            }
        } catch {
            if !quietly { onError?("\(path): \(error)") }
            output = nil
            isPlaying = false
            changed()
            return
        }
        currentIndex = index
        let name = (path as NSString).lastPathComponent
        current = (file.title ?? name, file.artist, file.album, file.duration, file.sampleRate)
        progress.frames.withLock { $0 = frame }
        let remaining = max(0, file.duration - Double(frame) / Double(file.sampleRate))
        feed(file, into: output!, generation: generation)
        if !isPlaying || flush { await prime(output!, seconds: min(Self.primeSeconds, remaining)) }
        resumeOutput()
    }

    /// What is written before a stopped stream starts: the server starts playing once it
    /// holds half a second, and a stream that starts with less, while a freshly launched app
    /// is still busy, can run dry at once.
    static let primeSeconds = 1.0

    /// Waits (briefly) until `seconds` of audio are in the stream.
    private func prime(_ output: AudioOutput, seconds: Double) async {
        let generation = self.generation
        let deadline = ContinuousClock.now + .seconds(2)
        while output.bufferedDuration < seconds
            && ContinuousClock.now < deadline && generation == self.generation && feeder != nil
        {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    private func resumeOutput() {
        guard let output else { return }
        do {
            try AudioSession.shared.setActive(true)
            try output.start()
            isPlaying = true
        } catch {
            onError?("play: \(error)")
            isPlaying = false
        }
        changed()
    }

    private func feed(_ file: sending AudioFile, into output: AudioOutput, generation: Int) {
        let progress = self.progress
        feeder = Task.detached(priority: .userInitiated) { [weak self] in
            let chunkFrames = max(1, file.sampleRate / 10)
            let bytesPerFrame = output.format.bytesPerFrame
            let buffer = UnsafeMutableRawBufferPointer.allocate(
                byteCount: chunkFrames * bytesPerFrame, alignment: MemoryLayout<Int32>.alignment)
            defer { buffer.deallocate() }
            var failure: String?
            do {
                while !Task.isCancelled {
                    let frames = try file.read(into: buffer, frameCount: chunkFrames, as: .s16le)
                    guard frames > 0 else { break }
                    Self.scale(buffer, samples: frames * output.format.channels, by: progress.gain.withLock { $0 })
                    try await output.write(UnsafeRawBufferPointer(rebasing: buffer[..<(frames * bytesPerFrame)]))
                    progress.frames.withLock { $0 += Int64(frames) }
                }
            } catch is CancellationError {
                return
            } catch let error as AudioError where error.code == .streamClosed {
                // The daemon went away (or dropped the stream): not the file's fault.
                guard !Task.isCancelled else { return }
                await self?.streamLost(generation: generation)
                return
            } catch {
                failure = "\(file.path): \(error)"
            }
            guard !Task.isCancelled else { return }
            await self?.itemEnded(generation: generation, failure: failure)
        }
    }

    /// Scales 16-bit samples by a gain below 1 (a quieter player), in place.
    private nonisolated static func scale(_ buffer: UnsafeMutableRawBufferPointer, samples: Int, by gain: Double) {
        guard gain < 1 else { return }
        let shorts = buffer.bindMemory(to: Int16.self)
        for index in 0..<samples { shorts[index] = Int16((Double(shorts[index]) * gain).rounded()) }
    }

    private func itemEnded(generation: Int, failure: String?) {
        guard generation == self.generation else { return }
        if let failure { onError?(failure) }
        // An item that gave no audio is not repeated: it would be opened again at once, forever.
        let played = progress.frames.withLock { $0 } > 0 && failure == nil
        enqueue { player in
            guard generation == player.generation else { return }
            // Worked out now, not when the item ended: a shuffle queued before this reorders
            // the items.
            var following = (player.currentIndex ?? -1) + 1
            if played && player.repeatMode == .one, let index = player.currentIndex {
                following = index
            } else if played && player.repeatMode == .all && following == player.items.count {
                following = 0
            }
            if player.items.indices.contains(following) {
                // Same format: no flush, so the next file follows without a gap.
                await player.start(at: following, flush: false)
            } else {
                await player.finish()
            }
        }
    }

    /// The stream is gone with the daemon that served it: keep the place (what had left the
    /// buffer), and go on from there when the daemon is back.
    private func streamLost(generation: Int) {
        guard generation == self.generation, let index = currentIndex, let rate = current?.rate else { return }
        lost = (index, Int64(elapsed * Double(rate)), isPlaying)
        feeder = nil
        output = nil
        isPlaying = false
        onError?("the audio stream was lost (the daemon went away); playback resumes when it is back")
        changed()
    }

    /// The daemon is back: every stream belonged to the one that went away, so playback goes
    /// on from its place on a new stream, whether or not the feeding task has noticed the loss
    /// yet. The new daemon may not have reached PulseAudio yet: the stream is asked for again
    /// for a while before the player gives up.
    private func mediaServicesWereReset() {
        // Asking for the stream again takes round trips to a daemon that may still be reaching
        // PulseAudio; until it plays, the app holds no audio and its grace runs. A background
        // task keeps it from being suspended in between, as an iOS app asks for time to finish
        // what it started (on a loaded machine the grace ran out first, and the music stopped).
        let wasPlaying = lost?.playing ?? isPlaying
        let task = wasPlaying ? Application.shared.beginBackgroundTask(withName: "reopen audio") : .invalid
        enqueue { player in
            defer { Application.shared.endBackgroundTask(task) }
            let current = player.currentIndex.flatMap { index in
                player.current.map {
                    (index: index, frame: Int64(player.elapsed * Double($0.rate)), playing: player.isPlaying)
                }
            }
            guard let place = player.lost ?? current else { return }
            player.output = nil
            guard place.playing else {
                // Paused: the next play() goes on from here.
                player.lost = place
                return
            }
            player.lost = nil
            for attempt in 1...Self.reopenAttempts {
                await player.start(
                    at: place.index, frame: place.frame, flush: true, quietly: attempt < Self.reopenAttempts)
                if player.output != nil { break }
                try? await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    /// How often a stream is asked for after a reset, 250 ms apart.
    static let reopenAttempts = 40

    /// The queue ran out: let what is buffered play, then pause, which lets the app be
    /// suspended.
    private func finish() async {
        feeder = nil
        if let output, isPlaying {
            try? await output.drain()
            try? output.pause()
        }
        // Tell the now-playing center it stopped before there is nothing to describe.
        isPlaying = false
        changed()
        currentIndex = nil
        onChange?()
    }

    /// The output went away (headphones unplugged): the daemon paused the stream, and the
    /// player says so, keeping its place, as an iOS player pauses.
    private func routeChanged(_ change: AudioSession.RouteChange) {
        guard change.paused, change.stream == output?.stream, isPlaying else { return }
        interruptedWhilePlaying = false
        isPlaying = false
        changed()
    }

    private func interrupted(_ interruption: AudioSession.Interruption) {
        // The daemon corks and uncorks the stream itself; this only keeps the state honest,
        // and resumes a player that the interruption stopped.
        guard !interruption.serverLost else { return }
        if interruption.began {
            interruptedWhilePlaying = isPlaying
            isPlaying = false
            changed()
        } else if interruption.shouldResume && interruptedWhilePlaying {
            interruptedWhilePlaying = false
            play()
        }
    }

    private func changed() {
        NowPlayingInfoCenter.shared.nowPlayingInfo = nowPlaying
        onChange?()
    }
}
