import CSndFile
import Foundation

/// Audio files encoded by libsndfile, with tags, as a person's music library has them: FLAC
/// and Ogg with Vorbis comments, MP3 (where LAME is there) with the ID3v2 tag taggers write.
public enum EncodedAudio {
    /// What a file says it is.
    public struct Tags: Sendable {
        public var title: String?
        public var artist: String?
        public var album: String?

        public init(title: String? = nil, artist: String? = nil, album: String? = nil) {
            self.title = title
            self.artist = artist
            self.album = album
        }
    }

    /// Why a file could not be written.
    public struct WriteFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Whether this libsndfile can encode MP3 (it needs LAME).
    public static let canWriteMP3: Bool = {
        var info = SF_INFO()
        info.samplerate = 44100
        info.channels = 1
        info.format = Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        return Int(sf_format_check(&info)) == SF_TRUE
    }()

    /// Encodes samples (16-bit or float, interleaved) into a file of `format`
    /// (`SF_FORMAT_FLAC | SF_FORMAT_PCM_16`, `SF_FORMAT_OGG | SF_FORMAT_VORBIS`...), tagged.
    public static func write(
        shorts: [Int16] = [], floats: [Float] = [], to path: String, format: Int, sampleRate: Int, channels: Int,
        tags: Tags = Tags()
    ) throws {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = Int32(format)
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw WriteFailure(description: "\(path): \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(handle) }
        for (field, value) in [(SF_STR_TITLE, tags.title), (SF_STR_ARTIST, tags.artist), (SF_STR_ALBUM, tags.album)] {
            if let value { sf_set_string(handle, Int32(field), value) }
        }
        let written =
            shorts.isEmpty
            ? sf_writef_float(handle, floats, Int64(floats.count / channels))
            : sf_writef_short(handle, shorts, Int64(shorts.count / channels))
        guard written == Int64(max(shorts.count, floats.count) / channels) else {
            throw WriteFailure(description: "\(path): \(String(cString: sf_strerror(handle)))")
        }
    }

    /// Replaces an MP3's tags with an ID3v2.3 tag at its start, in UTF-16 with a byte order
    /// mark: how common taggers write them (LAME through libsndfile writes ID3v1 at the end,
    /// 30 Latin-1 characters a field).
    public static func retagMP3(_ path: String, _ tags: Tags) throws {
        var audio = try Data(contentsOf: URL(fileURLWithPath: path))
        if audio.count >= 128, audio.suffix(128).prefix(3) == Data("TAG".utf8) { audio.removeLast(128) }
        var body = Data()
        for (id, value) in [("TIT2", tags.title), ("TPE1", tags.artist), ("TALB", tags.album)] {
            guard let value else { continue }
            var text = Data([1, 0xFF, 0xFE])
            for unit in value.utf16 { text.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
            text.append(contentsOf: [0, 0])
            body.append(Data(id.utf8))
            body.append(contentsOf: withUnsafeBytes(of: UInt32(text.count).bigEndian, Array.init))
            body.append(contentsOf: [0, 0])
            body.append(text)
        }
        // The tag's size is a "synchsafe" integer: 7 bits a byte.
        let size = body.count
        var tagged = Data("ID3".utf8)
        tagged.append(contentsOf: [3, 0, 0])
        for shift in [21, 14, 7, 0] { tagged.append(UInt8((size >> shift) & 0x7F)) }
        tagged.append(body)
        tagged.append(audio)
        try tagged.write(to: URL(fileURLWithPath: path))
    }
}
