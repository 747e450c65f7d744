import BackgrounderCore
import BackgrounderProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A self-pipe that lets a blocking reader thread sleep in `poll(2)` with no timeout and
/// still be woken at once for shutdown: no polling loop, so no timer wakeups while idle.
package final class WakeupPipe: Sendable {
    /// The end to include in a `poll` set; readable once ``wake()`` was called.
    package let readDescriptor: Int32
    private let writeDescriptor: Int32

    package init() throws {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else {
            throw DaemonError(.configuration, path: "pipe", String(cString: strerror(errno)))
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
        }
        readDescriptor = descriptors[0]
        writeDescriptor = descriptors[1]
    }

    deinit {
        close(readDescriptor)
        close(writeDescriptor)
    }

    /// Wakes the thread; stays readable until the pipe is closed.
    package func wake() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Empties the pipe, so it can be woken again: for a signal that is not shutdown.
    package func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readDescriptor, &bytes, bytes.count) > 0 {}
    }

    /// Whether ``wake()`` has been called.
    package var isWoken: Bool {
        var descriptor = pollfd(fd: readDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// Waits until `descriptor` is readable, the pipe is woken, or `timeout` passes.
    /// - Parameters:
    ///   - descriptor: A file descriptor to wait on, or `nil` to wait on the pipe alone.
    ///   - timeout: The longest wait, or `nil` for none.
    /// - Returns: `true` when `descriptor` is readable (or hung up) and the pipe was not woken.
    package func wait(for descriptor: Int32?, timeout: Duration?) -> Bool {
        var descriptors = [pollfd(fd: readDescriptor, events: Int16(POLLIN), revents: 0)]
        if let descriptor {
            descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
        }
        let milliseconds: Int32 =
            timeout.map { Int32($0.wholeMicroseconds / 1000) }
            ?? -1
        let ready = retryingInterrupted { poll(&descriptors, nfds_t(descriptors.count), milliseconds) }
        if ready <= 0 || descriptors[0].revents != 0 { return false }
        return descriptors.count > 1 && descriptors[1].revents != 0
    }
}
