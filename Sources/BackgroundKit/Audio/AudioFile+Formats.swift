import CSndFile

extension AudioFile {
    /// File name extensions, lowercased, of the formats this libsndfile build decodes: what a
    /// player picks out of a directory.
    ///
    /// libsndfile names one extension per container (`oga` for Ogg, `m1a` for MPEG), so the names
    /// people actually use for those (`ogg`, `opus`, `mp3`) are added when the container is there.
    /// Headerless `raw` is left out: it cannot be opened without being told its format.
    public static let readableExtensions: Set<String> = {
        var count: Int32 = 0
        sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR_COUNT), &count, Int32(MemoryLayout<Int32>.size))
        var extensions = Set<String>()
        var majors = Set<Int>()
        for index in 0..<count {
            var info = SF_FORMAT_INFO()
            info.format = index
            guard
                sf_command(nil, Int32(SFC_GET_FORMAT_MAJOR), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0
            else { continue }
            let major = Int(info.format)
            majors.insert(major)
            if major != SF_FORMAT_RAW, let name = info.extension {
                extensions.insert(String(cString: name).lowercased())
            }
        }
        if majors.contains(SF_FORMAT_OGG) { extensions.formUnion(["ogg", "oga", "opus"]) }
        if majors.contains(SF_FORMAT_MPEG) { extensions.insert("mp3") }
        if majors.contains(SF_FORMAT_AIFF) { extensions.formUnion(["aif", "aifc"]) }
        return extensions
    }()

    /// A string tag, nil when absent or empty.
    static func tag(_ type: Int32, of handle: OpaquePointer) -> String? {
        guard let value = sf_get_string(handle, type) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// `WAV`, `FLAC`, `OGG Vorbis`, `MPEG Layer III`: the container's short name, with the codec
    /// where the container alone does not say what is inside.
    static func formatName(of format: Int) -> String {
        let major = format & SF_FORMAT_TYPEMASK
        let subtype = format & SF_FORMAT_SUBMASK
        switch major {
        case SF_FORMAT_OGG: return "\(shortName(of: major)) \(shortName(of: subtype))"
        case SF_FORMAT_MPEG: return shortName(of: subtype)
        default: return shortName(of: major)
        }
    }

    /// libsndfile's name for a major or subtype format without its parenthesised gloss:
    /// `WAV (Microsoft)` becomes `WAV`.
    private static func shortName(of format: Int) -> String {
        var info = SF_FORMAT_INFO()
        info.format = Int32(format)
        guard sf_command(nil, Int32(SFC_GET_FORMAT_INFO), &info, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let name = info.name
        else { return String(format, radix: 16) }
        let full = String(cString: name)
        return full.split(separator: " (", maxSplits: 1).first.map(String.init) ?? full
    }
}
