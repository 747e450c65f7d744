import BackgrounderProtocol
package import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An app's standard output and error, capped: the app writes into a named pipe (a FIFO in
/// the daemon's log directory), and a thread of the daemon copies what arrives into
/// `ID.log`, rotating it to `ID.log.1` (replacing the previous one) whenever it would grow
/// past the limit. An app therefore holds at most twice the limit on disk however much it
/// writes; one that writes faster than the disk takes is slowed by the full pipe, not the
/// daemon.
///
/// The pipe is named, and the app's end is opened read-write, so that it outlives the
/// daemon: while no daemon runs (a restart, a crash) the app's writes fill the pipe instead
/// of killing it with SIGPIPE, and the next daemon opens the pipe by name and drains it on
/// (``reattach(path:limit:)``).
///
/// The child gets ``writeDescriptor`` as its descriptors 1 and 2 (however it is started);
/// after the start the daemon calls ``startDraining()``, which closes the daemon's copy so
/// the copying thread sees end-of-file once the app and everything it started are gone.
package final class AppLog: Sendable {
    /// The log file; the rotation is this path with `.1` appended.
    package let path: String
    /// The most bytes the log file holds before it is rotated.
    package let limit: Int
    /// The pipe's write end, for the child (close-on-exec here: only the child's own
    /// descriptors 1 and 2, made by dup2, survive its exec).
    package let writeDescriptor: Int32
    private let readDescriptor: Int32
    private let writeClosed = Atomic<Bool>(false)
    /// Signalled once the copying thread has seen end-of-file.
    private let finished = DispatchSemaphore(value: 0)

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
        close(probe)
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
        let log = AppLog(path: path, limit: limit, readDescriptor: descriptor)
        startThread(named: "applog") { [log] in log.drain() }
        return log
    }

    /// The named pipe beside a log file.
    package static func pipePath(forLog path: String) -> String {
        (path.hasSuffix(".log") ? String(path.dropLast(4)) : path) + ".output"
    }

    /// Opens a FIFO for reading without waiting for a writer, then makes reads block.
    private static func openReadEnd(_ pipePath: String) -> Int32 {
        let descriptor = open(pipePath, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return -1 }
        var facts = stat()
        guard fstat(descriptor, &facts) == 0, facts.st_mode & S_IFMT == S_IFIFO else {
            close(descriptor)
            errno = EINVAL
            return -1
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    /// Closes the daemon's copy of the write end and copies the app's output to the log on a
    /// thread of its own until every writer is gone.
    package func startDraining() {
        closeWriteEnd()
        startThread(named: "applog") { [self] in drain() }
    }

    /// Waits until everything the app wrote is in the log, or `timeout` passes: called after
    /// the app's process is reaped, so that whoever hears of the exit (`bgctl ps`, `bgctl
    /// logs`) finds its last words. A child that outlives the app and keeps the pipe open ends
    /// the wait at the timeout rather than holding the exit back.
    package func awaitEndOfOutput(timeout: DispatchTimeInterval = .seconds(1)) {
        _ = finished.wait(timeout: .now() + timeout)
    }

    /// Gives up without starting (the launch failed): both ends are closed.
    package func abandon() {
        closeWriteEnd()
        close(readDescriptor)
    }

    private func closeWriteEnd() {
        if !writeClosed.exchange(true, ordering: .acquiringAndReleasing) { close(writeDescriptor) }
    }

    private static func openLog(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
    }

    private func drain() {
        defer {
            close(readDescriptor)
            finished.signal()
        }
        var file = Self.openLog(path)
        var size = Self.size(of: file)
        defer { if file >= 0 { close(file) } }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = retryingInterrupted { read(readDescriptor, buffer.baseAddress, buffer.count) }
            guard count > 0 else { return }
            var offset = 0
            while offset < count {
                if size >= limit {
                    if file >= 0 { close(file) }
                    file = rotate()
                    size = Self.size(of: file)
                }
                // Never past the limit: the part that fits, then the rest after a rotation.
                let chunk = min(count - offset, max(0, limit - size))
                if file >= 0 {
                    do {
                        try writeAll(file, UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + chunk]))
                    } catch {
                        // The disk is full or the file is gone: drop what does not fit rather
                        // than block the app; keep draining so the app never stalls on a pipe.
                        offset += chunk
                        size = limit
                        continue
                    }
                }
                size += chunk
                offset += chunk
            }
        }
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
