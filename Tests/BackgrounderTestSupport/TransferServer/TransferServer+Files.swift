import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension TransferServer {
    /// Writes `bytes` pseudo-random bytes to `path` (replacing it), the same bytes for the
    /// same seed on every run, a megabyte at a time: documents of any size without holding
    /// them in memory, and not compressible by anyone on the way.
    /// - Parameters:
    ///   - path: The file to write.
    ///   - bytes: Its length.
    ///   - seed: Which bytes.
    /// - Throws: ``HarnessError`` when the file cannot be written.
    public static func makeFile(at path: String, bytes: Int64, seed: UInt64 = 1) throws {
        precondition(bytes >= 0, "a file's length cannot be negative")
        let descriptor = try retryingInterrupts("create \(path)") {
            open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        }
        defer { close(descriptor) }
        let words = 1 << 17  // 1 MiB of UInt64
        let block = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: words)
        defer { block.deallocate() }
        var state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
        var left = bytes
        while left > 0 {
            for index in 0..<words {
                // xorshift64, as SeededGenerator, inlined: a GiB must not take a minute in debug.
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                block[index] = state
            }
            let count = Int(min(left, Int64(words * 8)))
            let raw = UnsafeRawBufferPointer(block)
            var written = 0
            while written < count {
                written += try retryingInterrupts("write \(path)") {
                    write(descriptor, raw.baseAddress! + written, count - written)
                }
            }
            left -= Int64(count)
        }
    }

    /// The SHA-256 of a file, lower-case hex, by `sha256sum`.
    /// - Parameter path: The file.
    /// - Returns: 64 hex digits.
    /// - Throws: ``HarnessError`` when the file cannot be read.
    public static func sha256(ofFile path: String) async throws -> String {
        try digest(await Tool.run(sha256sum, ["--", path]), path)
    }

    /// ``sha256(ofFile:)`` for threads that may block (not the cooperative pool's).
    static func blockingSHA256(ofFile path: String) throws -> String {
        try digest(Tool.run(sha256sum, ["--", path]), path)
    }

    private static let sha256sum = "/usr/bin/sha256sum"

    private static func digest(_ result: Tool.Result, _ path: String) throws -> String {
        let hex = result.output.prefix { !$0.isWhitespace }
        guard result.status == 0, hex.count == 64 else {
            throw HarnessError("sha256sum \(path) failed (\(result.status)): \(result.output)")
        }
        return String(hex)
    }
}
