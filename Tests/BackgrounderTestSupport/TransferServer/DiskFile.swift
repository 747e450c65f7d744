import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// An open file read or written off the event loop, on NIO's blocking-I/O thread pool, so a
/// slow disk never stalls the connections the loop serves.
///
/// One descriptor, closed once by ``close()``; reads and writes take explicit offsets or are
/// chained by the caller, so the class holds no mutable state.
final class DiskFile: Sendable {
    /// The file's path, for error messages.
    let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Opens a file to read.
    /// - Throws: ``HarnessError`` naming the file and errno.
    static func open(reading path: String) throws -> DiskFile {
        let descriptor = try retryingInterrupts("open \(path)") { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
        return DiskFile(path: path, descriptor: descriptor)
    }

    /// Creates (or truncates) a file to write, mode 0644.
    /// - Throws: ``HarnessError`` naming the file and errno.
    static func create(writing path: String) throws -> DiskFile {
        let descriptor = try retryingInterrupts("create \(path)") {
            Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        }
        return DiskFile(path: path, descriptor: descriptor)
    }

    /// The file's size now.
    /// - Throws: ``HarnessError`` when it cannot be read.
    static func size(of path: String) throws -> Int64 {
        var information = stat()
        _ = try retryingInterrupts("stat \(path)") { stat(path, &information) }
        guard (information.st_mode & S_IFMT) == S_IFREG else { throw HarnessError("\(path) is not a regular file") }
        return Int64(information.st_size)
    }

    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file.
    func read(at offset: Int64, count: Int, on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer> {
        NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) { [descriptor, path] in
            var buffer = ByteBufferAllocator().buffer(capacity: count)
            var filled = 0
            while filled < count {
                let got = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - filled) { bytes in
                    try retryingInterrupts("read \(path)") {
                        pread(descriptor, bytes.baseAddress, count - filled, off_t(offset) + off_t(filled))
                    }
                }
                if got == 0 { break }
                filled += got
            }
            return buffer
        }
    }

    /// Appends `buffer` (this file is written in order, one chained write after another).
    func write(_ buffer: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) { [descriptor, path] in
            try buffer.withUnsafeReadableBytes { bytes in
                var written = 0
                while written < bytes.count {
                    written += try retryingInterrupts("write \(path)") {
                        Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                    }
                }
            }
        }
    }

    /// Closes the descriptor; call once, after the last read or write completed.
    func close() {
        _ = Glibc.close(descriptor)
    }
}

/// Runs a system call until it is not interrupted, turning a failure into an error that names
/// what was attempted and errno's reason.
/// - Throws: ``HarnessError`` when the call fails.
@discardableResult
func retryingInterrupts<Result: BinaryInteger>(_ what: @autoclosure () -> String, _ call: () -> Result) throws
    -> Result
{
    while true {
        let result = call()
        if result >= 0 { return result }
        if errno == EINTR { continue }
        throw HarnessError("\(what()): \(String(cString: strerror(errno)))")
    }
}
