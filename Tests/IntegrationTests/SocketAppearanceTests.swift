import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import Testing

@testable import BackgrounderProtocol
@testable import BackgrounderSystem

#if canImport(Glibc)
    import Glibc
#endif

/// inotify queues an event as the file system call returns, so each step here is read back
/// at once: no waiting.
@Suite("a server's socket appearing is seen, even under directories made after the watch", .timeLimit(.minutes(2)))
struct SocketAppearanceTests {
    /// Binds a Unix socket at `path`, as a server does on start, and closes it (the file stays).
    private func bind(_ path: String) throws {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var (address, length) = try #require(unixSocketAddress(path))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, length) }
        }
        #expect(bound == 0, "bind \(path): \(String(cString: strerror(errno)))")
    }

    @Test("a socket two missing directories down: each directory's creation moves the watch, the bind is seen")
    func nestedDirectories() throws {
        let directory = try TemporaryDirectory(prefix: "appear")
        defer { directory.remove() }
        let socketPath = directory.appending("run/pulse/native")
        let appearance = try #require(SocketAppearance())
        #expect(appearance.watch(socketPath))
        #expect(appearance.drain().isEmpty)

        try FileManager.default.createDirectory(atPath: directory.appending("run"), withIntermediateDirectories: false)
        #expect(appearance.drain().isEmpty)
        try FileManager.default.createDirectory(
            atPath: directory.appending("run/pulse"), withIntermediateDirectories: false)
        #expect(appearance.drain().isEmpty)
        // Another file in the socket's directory, now watched, is not the socket.
        _ = FileManager.default.createFile(atPath: directory.appending("run/pulse/pid"), contents: Data("1".utf8))
        #expect(appearance.drain().isEmpty)
        // Watched again (each failed attempt does): the watch stays, and nothing is lost.
        #expect(appearance.watch(socketPath))
        try bind(socketPath)
        #expect(appearance.watch(socketPath))
        #expect(appearance.drain() == [socketPath])

        // A restart over the stale socket creates the file again.
        unlink(socketPath)
        try bind(socketPath)
        #expect(appearance.drain() == [socketPath])

        appearance.unwatch(socketPath)
        unlink(socketPath)
        try bind(socketPath)
        #expect(appearance.drain().isEmpty)
    }

    @Test("a directory made with the socket already in it (renamed into place) reports the socket")
    func directoryMovedIn() throws {
        let directory = try TemporaryDirectory(prefix: "appear")
        defer { directory.remove() }
        let socketPath = directory.appending("bus/socket")
        let appearance = try #require(SocketAppearance())
        #expect(appearance.watch(socketPath))
        try FileManager.default.createDirectory(
            atPath: directory.appending("staging"), withIntermediateDirectories: false)
        try bind(directory.appending("staging/socket"))
        #expect(appearance.drain().isEmpty)
        #expect(rename(directory.appending("staging"), directory.appending("bus")) == 0)
        #expect(appearance.drain() == [socketPath])
    }

    @Test("its directory removed and made again: the watch follows")
    func directoryRecreated() throws {
        let directory = try TemporaryDirectory(prefix: "appear")
        defer { directory.remove() }
        let runtime = directory.appending("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        let socketPath = runtime + "/bus"
        let appearance = try #require(SocketAppearance())
        #expect(appearance.watch(socketPath))
        // A session's runtime directory goes at logout and comes back at the next login.
        try FileManager.default.removeItem(atPath: runtime)
        #expect(appearance.drain().isEmpty)
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        #expect(appearance.drain().isEmpty)
        try bind(socketPath)
        #expect(appearance.drain() == [socketPath])
    }

    @Test("two sockets in one directory: one unwatched, the other still seen")
    func sharedDirectory() throws {
        let directory = try TemporaryDirectory(prefix: "appear")
        defer { directory.remove() }
        let session = directory.appending("bus")
        let pulse = directory.appending("native")
        let appearance = try #require(SocketAppearance())
        #expect(appearance.watch(session) && appearance.watch(pulse))
        appearance.unwatch(session)
        try bind(session)
        try bind(pulse)
        #expect(appearance.drain() == [pulse])
    }

    /// Runs `pause` in a task and returns what it announced first, once it announced it.
    private func startPause(
        _ path: String, schedule: RetrySchedule
    ) async -> (announced: String, done: Task<RetrySchedule, Never>) {
        let (announcements, announce) = AsyncStream<String>.makeStream()
        let done = Task {
            var schedule = schedule
            await SocketAppearance.pause(before: path, schedule: &schedule) { announce.yield($0) }
            return schedule
        }
        var iterator = announcements.makeAsyncIterator()
        return (await iterator.next() ?? "", done)
    }

    /// A schedule that counted two failures of a socket that refused: its next wait is 4 ms.
    private var counted: RetrySchedule {
        var schedule = RetrySchedule(first: .milliseconds(1), limit: .seconds(1))
        _ = schedule.next(socketWatched: false)
        _ = schedule.next(socketWatched: false)
        return schedule
    }

    @Test(
        "pause before an absent socket: waits for it with no timer, returns when it is bound, and starts the schedule again"
    )
    func pauseUntilTheSocketAppears() async throws {
        let directory = try TemporaryDirectory(prefix: "appear")
        defer { directory.remove() }
        let socketPath = directory.appending("pulse/native")
        let (announced, done) = await startPause(socketPath, schedule: counted)
        #expect(announced == "waiting for \(socketPath) to appear")
        try FileManager.default.createDirectory(
            atPath: directory.appending("pulse"), withIntermediateDirectories: false)
        try bind(socketPath)
        var schedule = await done.value
        #expect(schedule.next(socketWatched: false) == .milliseconds(1), "the schedule starts again")
    }

    @Test("pause before a socket that is there but refuses: retried on the timer")
    func pauseBeforeAStaleSocket() async throws {
        let directory = try TemporaryDirectory(prefix: "appear")
        defer { directory.remove() }
        let socketPath = directory.appending("native")
        try bind(socketPath)  // Closed: a file nobody listens on, as a failed server leaves.
        let (announced, done) = await startPause(socketPath, schedule: counted)
        #expect(announced == "retrying in 0.004 seconds")
        _ = await done.value
    }

    @Test("pause waiting for a socket ends when its task is cancelled")
    func pauseCancelled() async throws {
        let directory = try TemporaryDirectory(prefix: "appear")
        defer { directory.remove() }
        let (announced, done) = await startPause(directory.appending("never"), schedule: counted)
        #expect(announced.hasPrefix("waiting for"))
        done.cancel()
        _ = await done.value
    }
}
