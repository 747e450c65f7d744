import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// backgrounderd as systemd runs it: its units pass `systemd-analyze verify`, it speaks the
/// notification protocol to a `$NOTIFY_SOCKET` the test holds, it serves a socket systemd
/// passed (`systemd-socket-activate`), its lines carry journald priorities when standard error
/// is the journal, and SIGHUP rescans bundles.
@Suite("A systemd service", .timeLimit(.minutes(5)), .tearsDown)
struct SystemdServiceTests {
    static let analyze = "/usr/bin/systemd-analyze"
    static let activate = "/usr/bin/systemd-socket-activate"

    @Test(
        "the service and socket units pass systemd-analyze verify",
        .enabled(if: FileManager.default.isExecutableFile(atPath: analyze), "systemd-analyze is not installed"))
    func unitsVerify() async throws {
        let directory = try TemporaryDirectory(prefix: "units")
        atTeardown { directory.remove() }
        for unit in ["backgrounderd.service", "backgrounderd.socket"] {
            let text = try String(
                contentsOfFile: Locations.repositoryRoot + "/contrib/systemd/" + unit, encoding: .utf8)
            // The installed path, here the built one.
            try text.replacingOccurrences(of: "/usr/bin/backgrounderd", with: Locations.product("backgrounderd"))
                .write(toFile: directory.appending(unit), atomically: true, encoding: .utf8)
        }
        let result = try await Tool.run(
            Self.analyze,
            ["verify", directory.appending("backgrounderd.service"), directory.appending("backgrounderd.socket")])
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("backgrounderd."), "\(result.output)")
    }

    @Test("READY=1 once the socket serves, STATUS= with apps and services, WATCHDOG=1 pings, STOPPING=1 at the end")
    func notifications() async throws {
        let directory = try TemporaryDirectory(prefix: "notify")
        atTeardown { directory.remove() }
        let listener = try NotifyListener(path: directory.appending("notify.sock"))
        defer { listener.close() }
        let daemon = try await DaemonProcess(
            directory: directory,
            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000"])
        await waitUntil { listener.received.filter { $0.contains("WATCHDOG=1") }.count >= 3 }
        let messages = listener.received
        let ready = try #require(messages.firstIndex { $0.contains("READY=1") }, "\(messages)")
        #expect(messages[ready].contains("STATUS=0 apps running, 0 suspended; gpsd"), "\(messages[ready])")
        #expect(messages.filter { $0.contains("WATCHDOG=1") }.count >= 3)
        #expect(messages.firstIndex { $0.contains("WATCHDOG=1") } ?? 0 > ready, "no ping before READY")
        #expect(throws: Never.self) { try daemon.status() }
        let graceful = await daemon.stop()
        #expect(graceful, "SIGTERM did not end it within its grace: \(daemon.log.suffix(3000))")
        // The daemon has exited, but the listener's thread may not have read its last
        // datagrams yet (a busy machine): wait for them to be read.
        await waitUntil(timeout: .seconds(10)) {
            listener.received.contains { $0.contains("EXTEND_TIMEOUT_USEC=") }
        }
        let end = listener.received
        #expect(end.contains { $0.contains("STOPPING=1") }, "\(end)")
        #expect(end.contains { $0.contains("EXTEND_TIMEOUT_USEC=") }, "\(end)")
    }

    @Test(
        "a socket systemd passed is served (socket activation), and SIGHUP rescans the bundles",
        .enabled(if: FileManager.default.isExecutableFile(atPath: activate), "systemd-socket-activate is not installed")
    )
    func socketActivationAndHangup() async throws {
        let directory = try TemporaryDirectory(prefix: "activate")
        atTeardown { directory.remove() }
        let socket = directory.appending("run/backgrounderd.sock")
        try FileManager.default.createDirectory(
            atPath: directory.appending("run"), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o711])
        let bundles = directory.appending("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], launcher: [Self.activate, "-l", socket])
        atTeardown { await daemon.stop() }
        let status = try daemon.status()
        #expect(status.bundles.loaded == 0)
        // Waited for: the socket answers before the line reaches the log file (a loaded run once
        // read the log first).
        #expect(
            await waitUntil { daemon.log.contains("listening on the socket systemd passed") }, "\(daemon.log)")

        try SampleBundles.assemble("Hello", into: bundles)
        daemon.signal(SIGHUP)
        await waitUntil { (try? daemon.status().bundles.loaded) == 1 }
        #expect(try daemon.status().bundles.loaded == 1, "SIGHUP rescanned: \(daemon.log)")
        #expect(daemon.isRunning)
    }

    @Test("with standard error as the journal, lines carry their syslog priority")
    func journalPriorities() async throws {
        let directory = try TemporaryDirectory(prefix: "journal")
        atTeardown { directory.remove() }
        // What systemd does: JOURNAL_STREAM names standard error's device and inode.
        let daemon = try await DaemonProcess(
            directory: directory,
            launcher: ["/bin/sh", "-c", #"JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec "$0" "$@""#])
        await daemon.stop()
        let lines = daemon.log.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("<6>backgrounderd:") && $0.contains("listening on") }, "\(daemon.log)")
        #expect(lines.contains { $0.hasPrefix("<7>backgrounderd:") })
        #expect(lines.allSatisfy { $0.first == "<" }, "every line has its priority")
    }
}

/// The test's end of `$NOTIFY_SOCKET`: a datagram socket whose messages a thread collects.
final class NotifyListener: @unchecked Sendable {
    let path: String
    private let descriptor: Int32
    private let messages = NSLock()
    private var collected: [String] = []
    private var thread: Thread?

    init(path: String) throws {
        self.path = path
        let socketDescriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        descriptor = socketDescriptor
        guard case (var address, let length)? = unixSocketAddress(path) else {
            throw HarnessError("\(path) is too long")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketDescriptor, $0, length)
            }
        }
        guard socketDescriptor >= 0, bound == 0 else { throw HarnessError("cannot bind \(path)") }
        chmod(path, 0o666)
        let thread = Thread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(socketDescriptor, &buffer, buffer.count, 0)
                guard count > 0, let self else { return }
                let text = String(decoding: buffer[0..<count], as: UTF8.self)
                self.messages.withLock { self.collected.append(text) }
            }
        }
        thread.start()
        self.thread = thread
    }

    /// Every datagram so far.
    var received: [String] { messages.withLock { collected } }

    func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
    }
}
