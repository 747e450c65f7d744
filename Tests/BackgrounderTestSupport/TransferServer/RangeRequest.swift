/// What a `Range` header asks of a document of `total` bytes (RFC 9110 §14.2), as the server
/// will answer it.
enum RangeRequest: Sendable, Hashable {
    /// No range, or one a server may ignore: several ranges, another unit, a malformed or
    /// backwards one. Answered 200 with the whole document.
    case whole
    /// Bytes `first` through `last`, both included and within the document. Answered 206.
    case part(first: Int64, last: Int64)
    /// A range that starts past the end. Answered 416.
    case unsatisfiable

    /// Reads a `Range` header.
    /// - Parameters:
    ///   - header: The header's value, or `nil` when not sent.
    ///   - total: The document's length.
    init(header: String?, total: Int64) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let firstText = spec[..<dash]
        let lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty {
            // "-N": the last N bytes.
            guard let suffix = Int64(lastText) else {
                self = .whole
                return
            }
            self = suffix == 0 || total == 0 ? .unsatisfiable : .part(first: max(0, total - suffix), last: total - 1)
            return
        }
        guard let first = Int64(firstText), first >= 0 else {
            self = .whole
            return
        }
        var last = total - 1
        if !lastText.isEmpty {
            guard let asked = Int64(lastText), asked >= first else {
                self = .whole
                return
            }
            last = min(asked, total - 1)
        }
        self = first >= total ? .unsatisfiable : .part(first: first, last: last)
    }
}
