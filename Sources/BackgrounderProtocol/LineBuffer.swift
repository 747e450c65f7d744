/// Splits a byte stream into newline-terminated lines with a length cap, for clients that
/// read the socket themselves (the daemon uses the NIO decoder with the same rules).
public struct LineBuffer: Sendable {
    /// The longest line accepted, newline excluded.
    public let maximumLineLength: Int
    private var pending: [UInt8] = []

    /// Creates an empty buffer.
    /// - Parameter maximumLineLength: The cap; longer lines make ``nextLine()`` throw.
    public init(maximumLineLength: Int = 16 * 1024 * 1024) {
        self.maximumLineLength = maximumLineLength
    }

    /// Appends received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        pending.append(contentsOf: bytes)
    }

    /// Removes and returns the next complete line, without its newline (a trailing `\r` is
    /// dropped too, for people typing into `socat`).
    /// - Returns: The line, or `nil` when no complete line is buffered.
    /// - Throws: ``ProtocolError`` with code `lineTooLong` when the cap is passed.
    public mutating func nextLine() throws(ProtocolError) -> [UInt8]? {
        guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else {
            if pending.count > maximumLineLength {
                throw ProtocolError(.lineTooLong, "a line passed \(maximumLineLength) bytes without a newline")
            }
            return nil
        }
        var line = Array(pending[..<newline])
        pending.removeSubrange(...newline)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }
}
