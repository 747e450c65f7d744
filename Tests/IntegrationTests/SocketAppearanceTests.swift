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
        // Another file in the socket's directory is not the socket.
        _ = FileManager.default.createFile(atPath: directory.appending("run/pulse/pid"), contents: Data("1".utf8))
        #expect(appearance.drain().isEmpty)
        try bind(socketPath)
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
}
