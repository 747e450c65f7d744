import BackgrounderCore
import BackgrounderProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An app's standard output and error, capped: the app writes into a named pipe (a FIFO in
/// the daemon's log directory), and the daemon copies what arrives into
/// `ID.log` (on ``ProcessWatch``'s thread, which watches every app's pipe in one epoll),
/// rotating it to `ID.log.1` (replacing the previous one) whenever it would grow
/// past the limit. An app therefore holds at most twice the limit on disk however much it
/// writes; one that writes faster than the disk takes is slowed by the full pipe, not the
/// daemon.
///
/// Each line is written after the time the daemon read it, and each run starts and ends with
/// a marker line (``AppLogFormat``), so a person sees when the app said what, and where one
/// run's output ends and the next begins.
///
/// The pipe is named, and the app's end is opened read-write, so that it outlives the
/// daemon: while no daemon runs (a restart, a crash) the app's writes fill the pipe instead
/// of killing it with SIGPIPE, and the next daemon opens the pipe by name and drains it on
/// (``reattach(path:limit:)``).
///
/// The child gets ``writeDescriptor`` as its descriptors 1 and 2 (however it is started);
/// after the start the daemon calls ``releaseWriteEnd()``, which closes the daemon's copy so
/// the pipe reads end-of-file once the app and everything it started are gone.
package final class AppLog: Sendable {
    /// The log file; the rotation is this path with `.1` appended.
    package let path: String
    /// The most bytes the log file holds before it is rotated.
    package let limit: Int
    /// The pipe's write end, for the child (close-on-exec here: only the child's own
    /// descriptors 1 and 2, made by dup2, survive its exec).
    package let writeDescriptor: Int32
    /// The pipe's read end, non-blocking: ``copyAvailable(using:)`` takes what is there.
    package let readDescriptor: Int32
    private let writeClosed = Atomic<Bool>(false)
    /// The log file being written, its size, and whether the next byte starts a line (and so
    /// gets a stamp): opened at once for a new app (so the log exists from the start), at the
    /// first output for a reattached one.
    private let file = Locked<(descriptor: Int32, size: Int, atLineStart: Bool)>((-1, 0, true))
    private let ended = Atomic<Bool>(false)

    /// Makes the pipe and checks the log file can be opened.
    /// - Throws: ``DaemonError`` naming the log file when either fails.
    package init(path: String, limit: Int) throws {
        self.path = path
        self.limit = max(1, limit)
        let pipePath = Self.pipePath(forLog: path)
        // A pipe left by an earlier process of the app (or an earlier run) is not reused:
        // someone may still hold it.
        unlink(pipePath)
        guard mkfifo(pipePath, 0o600) == 0 else {
            throw DaemonError(
                .directory, path: pipePath, "cannot make the output pipe: \(String(cString: strerror(errno)))")
        }
        // Read end first (non-blocking, so the open does not wait for a writer), then the
        // app's end read-write: a FIFO opened so never blocks and never lacks a reader.
        readDescriptor = Self.openReadEnd(pipePath)
        writeDescriptor = open(pipePath, O_RDWR | O_CLOEXEC)
        guard readDescriptor >= 0, writeDescriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            if readDescriptor >= 0 { close(readDescriptor) }
            if writeDescriptor >= 0 { close(writeDescriptor) }
            throw DaemonError(.directory, path: pipePath, "cannot open the output pipe: \(reason)")
        }
        let probe = Self.openLog(path)
        guard probe >= 0 else {
            let reason = String(cString: strerror(errno))
            close(readDescriptor)
            close(writeDescriptor)
            throw DaemonError(.directory, path: path, "cannot open the app's log: \(reason)")
        }
        // Kept: the log exists from the start, as `bgctl logs` expects.
        let size = Self.size(of: probe)
        file.withLock { $0 = (probe, size, Self.endsLine(probe, size: size)) }
    }

    private init(path: String, limit: Int, readDescriptor: Int32) {
        self.path = path
        self.limit = max(1, limit)
        self.readDescriptor = readDescriptor
        self.writeDescriptor = -1
        writeClosed.store(true, ordering: .releasing)
    }

    /// Drains the pipe of a process an earlier run of the daemon started (see the type's
    /// documentation), from where that run stopped.
    /// - Returns: The log, draining, or `nil` when the pipe is gone.
    package static func reattach(path: String, limit: Int) -> AppLog? {
        let descriptor = openReadEnd(pipePath(forLog: path))
        guard descriptor >= 0 else { return nil }
        return AppLog(path: path, limit: limit, readDescriptor: descriptor)
    }

    /// The named pipe beside a log file.
    package static func pipePath(forLog path: String) -> String {
        (path.hasSuffix(".log") ? String(path.dropLast(4)) : path) + ".output"
    }

    /// Opens a FIFO for reading without waiting for a writer; reads stay non-blocking.
    private static func openReadEnd(_ pipePath: String) -> Int32 {
        let descriptor = open(pipePath, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return -1 }
        var facts = stat()
        guard fstat(descriptor, &facts) == 0, facts.st_mode & S_IFMT == S_IFIFO else {
            close(descriptor)
            errno = EINVAL
            return -1
        }
        return descriptor
    }

    /// Closes the daemon's copy of the write end, once the child has its own: from then on
    /// the pipe reads end-of-file when the app and everything it started are gone.
    package func releaseWriteEnd() {
        closeWriteEnd()
    }

    /// Gives up without starting (the launch failed): both ends are closed.
    package func abandon() {
        closeWriteEnd()
        endOutput()
    }

    private func closeWriteEnd() {
        if !writeClosed.exchange(true, ordering: .acquiringAndReleasing) { close(writeDescriptor) }
    }

    private static func openLog(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
    }

    /// Whether every writer is gone and everything they wrote is in the log.
    package var outputEnded: Bool { ended.load(ordering: .acquiring) }

    /// Copies what the pipe holds now into the log, without waiting for more.
    /// - Parameter buffer: Scratch space for the copy (the watching thread's own).
    /// - Returns: Whether the output has ended (every writer gone, or the pipe unreadable);
    ///   the caller then stops watching the pipe and calls ``endOutput()``.
    package func copyAvailable(using buffer: UnsafeMutableRawBufferPointer) -> Bool {
        while true {
            let count = retryingInterrupted { read(readDescriptor, buffer.baseAddress, buffer.count) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return false }
            guard count > 0 else { return true }
            append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// Closes the pipe and the log file, after ``copyAvailable(using:)`` said the output ended.
    package func endOutput() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(readDescriptor)
        file.withLock { file in
            if file.descriptor >= 0 { close(file.descriptor) }
            file.descriptor = -1
        }
    }

    /// Writes a marker line (``AppLogFormat/markerLine(_:)``) where a run starts: before the
    /// daemon copies any of the new process's output.
    package func markStart(_ text: String) {
        file.withLock { file in
            let line = (file.atLineStart ? [] : [UInt8(ascii: "\n")]) + AppLogFormat.markerLine(text)
            line.withUnsafeBytes { write($0, to: &file) }
            file.atLineStart = true
        }
    }

    /// Writes a marker line where a run ended, after the app's unfinished line, if any: from
    /// the app core once it heard of the exit, when this log's output has ended (or its grace
    /// passed; a child the app left may still write, between whole reads).
    package static func markEnd(_ text: String, inLogAt path: String) {
        let descriptor = openLog(path)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let line =
            (endsLine(descriptor, size: size(of: descriptor)) ? [] : [UInt8(ascii: "\n")])
            + AppLogFormat.markerLine(text)
        line.withUnsafeBytes { try? writeAll(descriptor, $0) }
    }

    /// The last 64 KiB of a log file (or all of it), or nothing when it cannot be read.
    package static func tail(of path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        let size = size(of: descriptor)
        let start = max(0, size - (64 << 10))
        var bytes = [UInt8](repeating: 0, count: size - start)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(start)) }
        return Array(bytes.prefix(max(0, count)))
    }

    /// Appends what the app wrote, each line after a stamp of the time it was read.
    private func append(_ bytes: UnsafeRawBufferPointer) {
        file.withLock { file in
            // One stamp for everything one read took: it arrived together.
            let stamp = AppLogFormat.stampNow()
            var stamped: [UInt8] = []
            stamped.reserveCapacity(bytes.count + stamp.count)
            for byte in bytes {
                if file.atLineStart { stamped += stamp }
                stamped.append(byte)
                file.atLineStart = byte == UInt8(ascii: "\n")
            }
            stamped.withUnsafeBytes { write($0, to: &file) }
        }
    }

    /// Writes to the log file, rotating whenever it would pass the limit.
    private func write(
        _ bytes: UnsafeRawBufferPointer, to file: inout (descriptor: Int32, size: Int, atLineStart: Bool)
    ) {
        if file.descriptor < 0 {
            file.descriptor = Self.openLog(path)
            file.size = Self.size(of: file.descriptor)
            file.atLineStart = Self.endsLine(file.descriptor, size: file.size)
        }
        var offset = 0
        while offset < bytes.count {
            if file.size >= limit {
                if file.descriptor >= 0 { close(file.descriptor) }
                file.descriptor = rotate()
                file.size = Self.size(of: file.descriptor)
            }
            // Never past the limit: the part that fits, then the rest after a rotation.
            let chunk = min(bytes.count - offset, max(0, limit - file.size))
            if file.descriptor >= 0 {
                do {
                    try writeAll(file.descriptor, UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + chunk]))
                } catch {
                    // The disk is full or the file is gone: drop what does not fit rather
                    // than block the app; keep draining so the app never stalls on a pipe.
                    offset += chunk
                    file.size = limit
                    continue
                }
            }
            file.size += chunk
            offset += chunk
        }
    }

    /// Whether an existing log ends with a whole line (or is empty): a reattached log goes
    /// on from where the earlier daemon stopped.
    private static func endsLine(_ descriptor: Int32, size: Int) -> Bool {
        guard descriptor >= 0, size > 0 else { return true }
        var last: UInt8 = 0
        return pread(descriptor, &last, 1, off_t(size - 1)) != 1 || last == UInt8(ascii: "\n")
    }

    /// `ID.log` becomes `ID.log.1` (replacing the last rotation); a fresh `ID.log` is opened.
    private func rotate() -> Int32 {
        _ = rename(path, path + ".1")
        return Self.openLog(path)
    }

    private static func size(of file: Int32) -> Int {
        var facts = stat()
        guard file >= 0, fstat(file, &facts) == 0 else { return 0 }
        return Int(facts.st_size)
    }
}
