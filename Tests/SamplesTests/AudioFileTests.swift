import BackgroundKit
import BackgrounderTestSupport
import CSndFile
import Foundation
import Testing

@Suite("BackgroundKit's AudioFile decoder", .timeLimit(.minutes(5)))
struct AudioFileTests {
    @Test("16-bit WAV, mono and stereo, reads back exactly as s16 and as float32")
    func shortWAV() throws {
        let directory = try TemporaryDirectory(prefix: "af")
        defer { directory.remove() }
        let values: [Int16] = [0, 1, -1, 32767, -32768, 1234, -4321, 16384]
        for channels in 1...2 {
            let path = directory.appending("s16-\(channels).wav")
            try WAVFile.write(samples: values, sampleRate: 22050, channels: channels, to: path)
            let file = try AudioFile(path: path)
            #expect(file.sampleRate == 22050)
            #expect(file.channels == channels)
            #expect(file.outputChannels == channels)
            #expect(file.frames == Int64(values.count / channels))
            #expect(file.duration == Double(values.count / channels) / 22050)
            #expect(file.formatName == "WAV")
            #expect(file.title == nil && file.artist == nil)
            #expect(try readAll(file, as: Int16.self) == values)
            #expect(file.position == file.frames)
            try file.seek(toFrame: 0)
            // libsndfile's own normalisation of 16-bit samples: divided by 32768.
            #expect(try readAll(file, as: Float.self) == values.map { Float($0) / 32768 })
        }
    }

    @Test("float WAV reads back exactly as float32, and as s16 scaled by 32768, clipped, not normalised")
    func floatWAV() throws {
        let directory = try TemporaryDirectory(prefix: "af")
        defer { directory.remove() }
        let values: [Float] = [0, 0.5, -0.25, 1, -1, 0.1, 1.5, -2]
        let path = directory.appending("float.wav")
        try WAVFile.write(samples: values, sampleRate: 48000, channels: 2, to: path)
        let file = try AudioFile(path: path)
        #expect(file.channels == 2 && file.frames == 4)
        #expect(try readAll(file, as: Float.self) == values)
        try file.seek(toFrame: 0)
        #expect(try readAll(file, as: Int16.self) == [0, 16384, -8192, 32767, -32768, 3277, 32767, -32768])

        // A quiet file stays quiet: libsndfile's SFC_SET_SCALE_FLOAT_INT_READ would raise its peak
        // to full scale.
        let quiet = directory.appending("quiet.wav")
        try WAVFile.write(samples: [0.25, -0.125], sampleRate: 48000, channels: 1, to: quiet)
        #expect(try readAll(AudioFile(path: quiet), as: Int16.self) == [8192, -4096])
    }

    @Test("a 4-channel file gives its first two channels")
    func fourChannels() throws {
        let directory = try TemporaryDirectory(prefix: "af")
        defer { directory.remove() }
        // More frames than one decoding chunk, so the channel dropping runs over several.
        let frames = 10_000
        let values = (0..<frames).flatMap { frame in (0..<4).map { Int16(truncatingIfNeeded: frame * 4 + $0) } }
        let path = directory.appending("quad.wav")
        try WAVFile.write(samples: values, sampleRate: 44100, channels: 4, to: path)
        let file = try AudioFile(path: path)
        #expect(file.channels == 4)
        #expect(file.outputChannels == 2)
        let expected = (0..<frames).flatMap { frame in (0..<2).map { Int16(truncatingIfNeeded: frame * 4 + $0) } }
        #expect(try readAll(file, as: Int16.self) == expected)
        try file.seek(toFrame: 0)
        #expect(try readAll(file, as: Float.self) == expected.map { Float($0) / 32768 })
    }

    @Test("seek moves the next read, clamped to the file")
    func seek() throws {
        let directory = try TemporaryDirectory(prefix: "af")
        defer { directory.remove() }
        let values = (0..<1000).map { Int16($0) }
        let path = directory.appending("ramp.wav")
        try WAVFile.write(samples: values, sampleRate: 8000, channels: 1, to: path)
        let file = try AudioFile(path: path)
        var chunk = [Int16](repeating: 0, count: 10)
        try file.seek(toFrame: 500)
        #expect(file.position == 500)
        #expect(try read(file, into: &chunk) == 10)
        #expect(chunk == Array(values[500..<510]))
        #expect(file.position == 510)
        try file.seek(toFrame: -20)
        #expect(file.position == 0)
        #expect(try read(file, into: &chunk) == 10)
        #expect(chunk == Array(values[0..<10]))
        try file.seek(toFrame: 995)
        #expect(try read(file, into: &chunk) == 5)
        #expect(Array(chunk[0..<5]) == Array(values[995...]))
        try file.seek(toFrame: 5000)
        #expect(file.position == 1000)
        #expect(try read(file, into: &chunk) == 0)
    }

    @Test("FLAC written by libsndfile reads back exactly, with its title and artist")
    func flac() throws {
        let directory = try TemporaryDirectory(prefix: "af")
        defer { directory.remove() }
        let values: [Int16] = (0..<4410).flatMap { (frame: Int) -> [Int16] in
            [Int16(frame % 2000 - 1000), Int16(-(frame % 300))]
        }
        let path = directory.appending("song.flac")
        try EncodedAudio.write(
            shorts: values, to: path, format: SF_FORMAT_FLAC | SF_FORMAT_PCM_16, sampleRate: 44100, channels: 2,
            tags: .init(title: "Morgenstimmung", artist: "Edvard Grieg", album: "Peer Gynt"))
        let file = try AudioFile(path: path)
        #expect(file.formatName == "FLAC")
        #expect(file.title == "Morgenstimmung")
        #expect(file.artist == "Edvard Grieg")
        #expect(file.album == "Peer Gynt")
        #expect(file.frames == 4410)
        #expect(try readAll(file, as: Int16.self) == values)
    }

    @Test("Ogg Vorbis and Opus decode to the tone that was encoded, at its level")
    func lossy() throws {
        let directory = try TemporaryDirectory(prefix: "af")
        defer { directory.remove() }
        for (name, format, rate) in [("Vorbis", SF_FORMAT_VORBIS, 44100), ("Opus", SF_FORMAT_OPUS, 48000)] {
            let path = directory.appending("tone-\(name).ogg")
            try EncodedAudio.write(
                floats: tone(frequency: 1000, seconds: 1, sampleRate: rate), to: path, format: SF_FORMAT_OGG | format,
                sampleRate: rate, channels: 1, tags: .init(title: "Tone", album: "Tones"))
            let file = try AudioFile(path: path)
            #expect(file.formatName == "OGG \(name)")
            #expect(file.title == "Tone")
            #expect(file.album == "Tones")
            #expect(file.sampleRate == rate)
            try expectTone(file, frequency: 1000, amplitude: 0.5)
        }
    }

    @Test(
        "MP3 decodes to the tone that was encoded",
        // Debian's libsndfile 1.2.0 reads MP3 with mpg123 and writes it with LAME; a build
        // without them cannot be tested here, as there is no other encoder to make the file.
        .enabled(if: AudioFile.readableExtensions.contains("mp3") && EncodedAudio.canWriteMP3))
    func mp3() throws {
        let directory = try TemporaryDirectory(prefix: "af")
        defer { directory.remove() }
        let path = directory.appending("tone.mp3")
        try EncodedAudio.write(
            floats: tone(frequency: 1000, seconds: 1, sampleRate: 44100), to: path,
            format: SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, sampleRate: 44100, channels: 1,
            tags: .init(title: "Tone", artist: "Test"))
        let file = try AudioFile(path: path)
        #expect(file.formatName == "MPEG Layer III")
        #expect(file.title == "Tone")
        #expect(file.artist == "Test")
        try expectTone(file, frequency: 1000, amplitude: 0.5)

        // As a tagger leaves it: ID3v2 in UTF-16 at the start, beyond Latin-1.
        try EncodedAudio.retagMP3(path, .init(title: "Åse's Death", artist: "Edvard Grieg", album: "Пер Гюнт"))
        let retagged = try AudioFile(path: path)
        #expect(retagged.title == "Åse's Death")
        #expect(retagged.artist == "Edvard Grieg")
        #expect(retagged.album == "Пер Гюнт")
        try expectTone(retagged, frequency: 1000, amplitude: 0.5)
    }

    @Test("the extensions a directory is searched for are the formats this libsndfile reads")
    func extensions() {
        let extensions = AudioFile.readableExtensions
        for name in ["wav", "flac", "ogg", "oga", "opus", "aiff"] { #expect(extensions.contains(name), "\(name)") }
        #expect(!extensions.contains("raw"))
        #expect(extensions.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty })
    }

    @Test("a missing file and a file that is not audio are refused, naming the path and why")
    func refused() throws {
        let directory = try TemporaryDirectory(prefix: "af")
        defer { directory.remove() }
        let missing = directory.appending("missing.wav")
        let error = #expect(throws: AudioFileError.self) { try AudioFile(path: missing) }
        #expect(error?.code == .cannotOpen)
        #expect(error?.description.hasPrefix("\(missing): ") == true)
        #expect(error?.description.contains("No such file") == true)

        let garbage = directory.appending("garbage.flac")
        try Data("not audio, only some words that go on for a while".utf8).write(to: URL(fileURLWithPath: garbage))
        let notAudio = #expect(throws: AudioFileError.self) { try AudioFile(path: garbage) }
        #expect(notAudio?.code == .cannotOpen)
        #expect(notAudio?.description == "\(garbage): not audio libsndfile can read (Format not recognised.)")
        #expect(notAudio?.systemError == nil)
        #expect(error?.systemError == ENOENT)

        // An ID3 header and no MPEG frame: read through a descriptor, with no name to guess
        // the format by, libsndfile does not recognise it (by name, it once said "File does
        // not exist"); either way the reason is about its contents.
        let fakeMP3 = directory.appending("fake.mp3")
        try (Data("ID3".utf8) + Data([3, 0, 0, 0, 0, 0, 0]) + Data("garbage".utf8)).write(
            to: URL(fileURLWithPath: fakeMP3))
        let damaged = #expect(throws: AudioFileError.self) { try AudioFile(path: fakeMP3) }
        #expect(
            damaged?.description
                == "\(fakeMP3): not audio libsndfile can read (Format not recognised.)")
        #expect(damaged?.systemError == nil)

        let folder = #expect(throws: AudioFileError.self) { try AudioFile(path: directory.path) }
        #expect(folder?.description == "\(directory.path): is a directory, not an audio file")
        let emptyFile = directory.appending("empty.wav")
        try Data().write(to: URL(fileURLWithPath: emptyFile))
        let empty = #expect(throws: AudioFileError.self) { try AudioFile(path: emptyFile) }
        #expect(empty?.description == "\(emptyFile): is empty, not audio")
    }
}

// MARK: Helpers

/// Reads a whole file from its position, in 1000-frame calls.
private func readAll(_ file: AudioFile, as type: Int16.Type) throws -> [Int16] {
    var all: [Int16] = []
    var chunk = [Int16](repeating: 0, count: 1000 * file.outputChannels)
    while true {
        let frames = try read(file, into: &chunk)
        if frames == 0 { return all }
        all += chunk[0..<(frames * file.outputChannels)]
    }
}

private func readAll(_ file: AudioFile, as type: Float.Type) throws -> [Float] {
    var all: [Float] = []
    var chunk = [Float](repeating: 0, count: 1000 * file.outputChannels)
    while true {
        let frames = try chunk.withUnsafeMutableBytes { bytes in
            try file.read(into: bytes, frameCount: 1000, as: .float32le)
        }
        if frames == 0 { return all }
        all += chunk[0..<(frames * file.outputChannels)]
    }
}

/// Reads as many s16 frames as `chunk` holds.
private func read(_ file: AudioFile, into chunk: inout [Int16]) throws -> Int {
    let frames = chunk.count / file.outputChannels
    return try chunk.withUnsafeMutableBytes { bytes in
        try file.read(into: bytes, frameCount: frames, as: .s16le)
    }
}

private func tone(frequency: Double, seconds: Double, sampleRate: Int) -> [Float] {
    (0..<Int(seconds * Double(sampleRate))).map {
        Float(0.5 * sin(2 * .pi * frequency * Double($0) / Double(sampleRate)))
    }
}

/// Checks a lossy file's middle for a tone at a level, as floats and as shorts: codecs change
/// samples, not what is heard.
private func expectTone(_ file: AudioFile, frequency: Double, amplitude: Double) throws {
    let floats = try readAll(file, as: Float.self).map(Double.init)
    #expect(abs(floats.count - Int(file.frames)) <= 1, "decoded \(floats.count) of \(file.frames) frames")
    let middle = Array(floats[(floats.count / 4)..<(floats.count * 3 / 4)])
    #expect(ToneAnalysis.toneRatio(middle, frequency: frequency, sampleRate: Double(file.sampleRate)) > 0.9)
    #expect(abs(ToneAnalysis.rms(middle) - amplitude / 2.squareRoot()) < 0.05 * amplitude)
    try file.seek(toFrame: 0)
    let shorts = try readAll(file, as: Int16.self).map { Double($0) / 32768 }
    let shortMiddle = Array(shorts[(shorts.count / 4)..<(shorts.count * 3 / 4)])
    #expect(abs(ToneAnalysis.rms(shortMiddle) - amplitude / 2.squareRoot()) < 0.05 * amplitude)
}
