public import BackgrounderCore
import CSndFile

#if canImport(Glibc)
    import Glibc
#endif

/// A decoder for one audio file (WAV, FLAC, Ogg Vorbis or Opus, MP3 where libsndfile has it),
/// as `AVAudioFile` for reading: it hands out interleaved PCM in the formats the daemon carries.
///
/// Not `Sendable`: one reader belongs to one thread at a time, as libsndfile's handle does.
public final class AudioFile {
    /// The file, as the caller named it.
    public let path: String
    /// Frames per second.
    public let sampleRate: Int
    /// The channels stored in the file.
    public let channels: Int
    /// The total frames, as libsndfile counts them.
    public let frames: Int64
    /// The title tag (`SF_STR_TITLE`), nil when the file has none.
    public let title: String?
    /// The artist tag (`SF_STR_ARTIST`), nil when the file has none.
    public let artist: String?
    /// The album tag (`SF_STR_ALBUM`: a FLAC or Ogg file's Vorbis comment, an MP3's ID3
    /// `TALB`), nil when the file has none.
    public let album: String?
    /// The container and, where the container says little, the codec: `WAV`, `FLAC`, `OGG Vorbis`.
    public let formatName: String
    /// The next frame ``read(into:frameCount:as:)`` returns.
    public private(set) var position: Int64 = 0

    /// The channels ``read(into:frameCount:as:)`` produces: mono stays mono, and a file with
    /// more than two keeps its first two (front left and right in every common layout).
    public var outputChannels: Int { min(channels, 2) }

    /// The length in seconds.
    public var duration: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }

    private let handle: OpaquePointer
    /// Whether samples are stored as floats. libsndfile's own float-to-short conversion either
    /// truncates them all to 0 or, with `SFC_SET_SCALE_FLOAT_INT_READ`, normalises the file to its
    /// peak (and scans the whole file to find it), so such files are read as floats and scaled here.
    private let storesFloats: Bool
    private var floatScratch: [Float] = []
    private var shortScratch: [Int16] = []

    /// Frames decoded per libsndfile call when samples go through a scratch buffer.
    private static let chunkFrames = 4096

    /// Opens a file for reading: one the app may read, or one a person shared with it
    /// (``SharedFiles``), whose descriptor the daemon hands over.
    /// - Parameter path: The file.
    /// - Throws: ``AudioFileError`` with code `cannotOpen`, naming the path and libsndfile's
    ///   reason, when the file is missing or not a format this libsndfile decodes; or the
    ///   system's or the daemon's reason, with ``AudioFileError/systemError``, when it may not
    ///   be read.
    public init(path: String) throws(AudioFileError) {
        let descriptor: Int32
        do throws(SharedFileError) {
            descriptor = try SharedFiles.open(path)
        } catch {
            throw AudioFileError(code: .cannotOpen, path: path, reason: error.reason, systemError: error.systemError)
        }
        defer { close(descriptor) }
        var info = SF_INFO()
        // libsndfile gets a descriptor of its own, which it closes (sf_close, or on a failed
        // open, where libsndfile 1.2 closes it even when told not to); this one stays for
        // saying why an open failed.
        let decoderDescriptor = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard decoderDescriptor >= 0 else {
            throw AudioFileError(
                code: .cannotOpen, path: path, reason: String(cString: strerror(errno)), systemError: errno)
        }
        guard let handle = sf_open_fd(decoderDescriptor, Int32(SFM_READ), &info, 1) else {
            throw Self.openFailure(path, descriptor: descriptor)
        }
        guard info.channels > 0, info.samplerate > 0 else {
            sf_close(handle)
            throw AudioFileError(
                code: .cannotOpen, path: path,
                reason: "\(info.channels) channels at \(info.samplerate) Hz is not playable audio")
        }
        self.handle = handle
        self.path = path
        sampleRate = Int(info.samplerate)
        channels = Int(info.channels)
        frames = info.frames
        title = Self.tag(Int32(SF_STR_TITLE), of: handle)
        artist = Self.tag(Int32(SF_STR_ARTIST), of: handle)
        album = Self.tag(Int32(SF_STR_ALBUM), of: handle)
        formatName = Self.formatName(of: Int(info.format))
        let subtype = Int(info.format) & SF_FORMAT_SUBMASK
        storesFloats = subtype == SF_FORMAT_FLOAT || subtype == SF_FORMAT_DOUBLE
    }

    deinit {
        sf_close(handle)
    }

    /// Decodes the next frames.
    /// - Parameters:
    ///   - buffer: Where the frames go, interleaved with ``outputChannels`` channels; it must hold
    ///     `frameCount * outputChannels * format.bytesPerSample` bytes.
    ///   - frameCount: The most frames to decode.
    ///   - format: The sample encoding to produce, little-endian as the host.
    /// - Returns: The frames decoded, fewer than `frameCount` only at the end of the file, 0 there.
    /// - Throws: ``AudioFileError`` with code `cannotRead` when decoding fails.
    public func read(
        into buffer: UnsafeMutableRawBufferPointer, frameCount: Int, as format: SampleFormat
    ) throws(AudioFileError) -> Int {
        let bytesPerFrame = outputChannels * format.bytesPerSample
        precondition(frameCount >= 0, "frameCount must not be negative")
        precondition(buffer.count >= frameCount * bytesPerFrame, "the buffer is smaller than frameCount frames")
        var done = 0
        while done < frameCount {
            let wanted = min(frameCount - done, Self.chunkFrames)
            let destination = UnsafeMutableRawBufferPointer(rebasing: buffer[(done * bytesPerFrame)...])
            let got =
                switch format {
                case .s16le where storesFloats: readFloatsAsShorts(into: destination, frameCount: wanted)
                case .s16le: readShorts(into: destination, frameCount: wanted)
                case .float32le: readFloats(into: destination, frameCount: wanted)
                }
            done += got
            position += Int64(got)
            if got < wanted { break }
        }
        if done < frameCount, sf_error(handle) != Int32(SF_ERR_NO_ERROR) {
            throw AudioFileError(code: .cannotRead, path: path, reason: String(cString: sf_strerror(handle)))
        }
        return done
    }

    /// Moves to a frame, so the next ``read(into:frameCount:as:)`` starts there.
    /// - Parameter frame: The frame, clamped to `0...frames`.
    /// - Throws: ``AudioFileError`` with code `cannotSeek` when the decoder cannot get there.
    public func seek(toFrame frame: Int64) throws(AudioFileError) {
        let target = min(max(frame, 0), frames)
        // SEEK_SET is 0 in every C library; sndfile.h takes the stdio constant.
        let reached = sf_seek(handle, target, 0)
        guard reached >= 0 else {
            throw AudioFileError(code: .cannotSeek, path: path, reason: String(cString: sf_strerror(handle)))
        }
        position = reached
    }

    // The scratch buffers are decoded into first so the caller's buffer needs no alignment and
    // so extra channels can be dropped; one copy of a few kilobytes is cheap beside decoding.

    private func readShorts(into destination: UnsafeMutableRawBufferPointer, frameCount: Int) -> Int {
        let fileSamples = frameCount * channels
        if shortScratch.count < fileSamples { shortScratch = Array(repeating: 0, count: fileSamples) }
        return shortScratch.withUnsafeMutableBufferPointer { scratch in
            let got = Int(sf_readf_short(handle, scratch.baseAddress, Int64(frameCount)))
            copy(UnsafeRawBufferPointer(scratch), frames: got, sampleSize: 2, into: destination)
            return got
        }
    }

    private func readFloats(into destination: UnsafeMutableRawBufferPointer, frameCount: Int) -> Int {
        let fileSamples = frameCount * channels
        if floatScratch.count < fileSamples { floatScratch = Array(repeating: 0, count: fileSamples) }
        return floatScratch.withUnsafeMutableBufferPointer { scratch in
            let got = Int(sf_readf_float(handle, scratch.baseAddress, Int64(frameCount)))
            copy(UnsafeRawBufferPointer(scratch), frames: got, sampleSize: 4, into: destination)
            return got
        }
    }

    /// Reads floats and scales them by 32768, the inverse of libsndfile's short-to-float
    /// normalisation, so a float file made from 16-bit samples reads back exactly; out-of-range
    /// values clip rather than wrap.
    private func readFloatsAsShorts(into destination: UnsafeMutableRawBufferPointer, frameCount: Int) -> Int {
        let fileSamples = frameCount * channels
        if floatScratch.count < fileSamples { floatScratch = Array(repeating: 0, count: fileSamples) }
        if shortScratch.count < fileSamples { shortScratch = Array(repeating: 0, count: fileSamples) }
        let got = floatScratch.withUnsafeMutableBufferPointer { floats in
            Int(sf_readf_float(handle, floats.baseAddress, Int64(frameCount)))
        }
        for index in 0..<(got * channels) {
            let sample = floatScratch[index]
            shortScratch[index] = sample.isNaN ? 0 : Int16(max(-32768, min(32767, (sample * 32768).rounded())))
        }
        shortScratch.withUnsafeBufferPointer { shorts in
            copy(UnsafeRawBufferPointer(shorts), frames: got, sampleSize: 2, into: destination)
        }
        return got
    }

    /// Copies decoded frames, keeping the first ``outputChannels`` of each.
    private func copy(
        _ source: UnsafeRawBufferPointer, frames: Int, sampleSize: Int, into destination: UnsafeMutableRawBufferPointer
    ) {
        guard frames > 0 else { return }
        if channels == outputChannels {
            destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<(frames * channels * sampleSize)]))
            return
        }
        let kept = outputChannels * sampleSize
        let stride = channels * sampleSize
        for frame in 0..<frames {
            let from = UnsafeRawBufferPointer(rebasing: source[(frame * stride)..<(frame * stride + kept)])
            UnsafeMutableRawBufferPointer(rebasing: destination[(frame * kept)...]).copyMemory(from: from)
        }
    }

    /// Why `sf_open_fd` failed on the file open as `descriptor`, in words that fit the file:
    /// libsndfile's global reason is right for text and unknown formats, but a file its
    /// decoders reject may be reported as "File does not exist or is not a regular file", so
    /// a file that is there and readable is described here instead.
    static func openFailure(_ path: String, descriptor: Int32) -> AudioFileError {
        // Read first: the calls below must not replace libsndfile's reason.
        let libsndfileCode = sf_error(nil)
        let libsndfileReason = String(cString: sf_strerror(nil))
        func failure(_ reason: String, systemError: Int32? = nil) -> AudioFileError {
            AudioFileError(code: .cannotOpen, path: path, reason: reason, systemError: systemError)
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = errno
            return failure(String(cString: strerror(error)), systemError: error)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return failure("is a directory, not an audio file")
        case S_IFREG: break
        default: return failure("is not a regular file")
        }
        if info.st_size == 0 { return failure("is empty, not audio") }
        if libsndfileCode == Int32(SF_ERR_UNRECOGNISED_FORMAT) {
            return failure("not audio libsndfile can read (\(libsndfileReason))")
        }
        if libsndfileCode == Int32(SF_ERR_SYSTEM) { return failure(libsndfileReason) }
        // The file is there and readable: libsndfile's decoder rejected its contents.
        return failure("not audio libsndfile can decode (the file is damaged or not what its name says)")
    }
}
