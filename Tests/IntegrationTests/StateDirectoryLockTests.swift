import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// One daemon per state directory.
@Suite("State directory lock", .timeLimit(.minutes(5)), .tearsDown)
struct StateDirectoryLockTests {
    @Test("a second daemon on the same state directory, with another socket, is refused naming the holder's pid")
    func secondDaemonRefused() async throws {
        let fixture = try await DaemonFixture(prefix: "lock")
        atTeardown { await fixture.tearDown() }
        let otherSocket = fixture.directory.appending("run/other.sock")
        let second = try ChildProcess(
            Locations.product("backgrounderd"),
            ["--socket", otherSocket, "--state-dir", fixture.daemon.stateDirectory, "--ignore-memory-pressure"],
            logPath: fixture.directory.appending("second.log"))
        #expect(await second.waitForExit(timeout: .seconds(30)))
        #expect(second.terminationStatus != 0)
        #expect(second.output.contains("another backgrounderd (pid \(fixture.daemon.pid))"), "\(second.output)")
        // It touched nothing: no socket of its own, and the first one serves on.
        #expect(!FileManager.default.fileExists(atPath: otherSocket))
        #expect(try fixture.daemon.status().pid == fixture.daemon.pid)
        #expect(fixture.daemon.isRunning)
    }

    @Test("the lock goes with the daemon: after it stops, even uncleanly, the next one starts")
    func released() async throws {
        let directory = try TemporaryDirectory(prefix: "relock")
        atTeardown { directory.remove() }
        let first = try await DaemonProcess(directory: directory)
        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(10)))
        let lockFile = directory.appending("state/backgrounderd.lock")
        #expect(FileManager.default.fileExists(atPath: lockFile), "the stale file stays behind")
        let second = try await DaemonProcess(directory: directory)
        #expect(try second.status().pid == second.pid)
        let holder = try String(contentsOfFile: lockFile, encoding: .utf8)
        #expect(holder.trimmingCharacters(in: .whitespacesAndNewlines) == "\(second.pid)")
        await second.stop()
    }
}
