import BackgrounderAppCore
import BackgrounderSystem
import Foundation
package import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// An upload's body: a file of the app's, read in chunks as the connection takes them, never
/// whole in memory.
///
/// The daemon may read files its apps may not (it is not in their sandbox), so the file must
/// be the app's own: the path is resolved, must lie inside the app's data or temporary
/// directory, is opened without following a link, and the opened descriptor's own path is
/// checked again, so a link swapped in between cannot point it elsewhere.
package struct UploadFile: Sendable {
    package let descriptor: Int32
    package let length: Int64

    /// Opens `path` for an app whose own directories are `allowed`.
    /// - Throws: A sentence naming the file and why, for the app.
    package static func open(_ path: String, allowedIn allowed: [String]) throws(UploadFileError) -> UploadFile {
        guard path.hasPrefix("/") else { throw UploadFileError("file \(path) is not an absolute path") }
        let roots = allowed.compactMap(Self.resolved)
        func inside(_ resolved: String) -> Bool {
            roots.contains { resolved == $0 || resolved.hasPrefix($0 + "/") }
        }
        guard let resolved = Self.resolved(path) else {
            throw UploadFileError("cannot read file \(path): \(String(cString: strerror(errno)))")
        }
        guard inside(resolved) else {
            throw UploadFileError("file \(path) is not in the app's own data or temporary directory")
        }
        // Without blocking: opening a FIFO the app made waits for a writer, and the daemon's
        // actor would wait with it (every person's command too). On a regular file, the only
        // kind accepted below, O_NONBLOCK changes nothing.
        let descriptor = Glibc.open(resolved, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw UploadFileError("cannot read file \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        let opened = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) ?? ""
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, inside(opened) else {
            Glibc.close(descriptor)
            throw UploadFileError("file \(path) is not a regular file in the app's own directories")
        }
        return UploadFile(descriptor: descriptor, length: Int64(info.st_size))
    }

    /// `path` with every link and `..` resolved, or `nil` when it does not exist.
    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// The file's bytes as a sequence of buffers, counting what was read into `sent`.
    package func chunks(onRead: @escaping @Sendable (Int64) async -> Void) -> Chunks {
        Chunks(descriptor: descriptor, onRead: onRead)
    }

    package func close() {
        Glibc.close(descriptor)
    }

    /// The file in 256 KiB reads from the start.
    package struct Chunks: AsyncSequence, Sendable {
        package typealias Element = ByteBuffer
        package let descriptor: Int32
        package let onRead: @Sendable (Int64) async -> Void

        package func makeAsyncIterator() -> Iterator {
            Iterator(descriptor: descriptor, onRead: onRead)
        }

        package struct Iterator: AsyncIteratorProtocol {
            package let descriptor: Int32
            package let onRead: @Sendable (Int64) async -> Void
            package var offset: Int64 = 0
            package var reported = ContinuousClock.now

            package mutating func next() async throws -> ByteBuffer? {
                var buffer = ByteBufferAllocator().buffer(capacity: 256 << 10)
                let descriptor = descriptor
                let offset = offset
                let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 256 << 10) { raw in
                    Swift.max(0, pread(descriptor, raw.baseAddress, raw.count, off_t(offset)))
                }
                guard count > 0 else { return nil }
                self.offset += Int64(count)
                // A few reports a second, and the last one.
                if ContinuousClock.now - reported >= .milliseconds(250) || count < 256 << 10 {
                    reported = .now
                    await onRead(self.offset)
                }
                return buffer
            }
        }
    }
}

/// Why an upload's file cannot be sent.
package struct UploadFileError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
