import BackgrounderTestSupport
import Foundation
import Testing

@testable import RegionAlerts

#if canImport(Glibc)
    import Glibc
#endif

@Suite("RegionAlerts' desktop notifications")
struct DesktopNotificationTests {
    /// A `notify-send` that records its arguments, or that hangs.
    private func fakeNotifySend(in directory: TemporaryDirectory, hangs: Bool = false) throws -> [String: String] {
        let script = directory.appending("notify-send")
        // The environment the app passes has only this directory on the PATH: no external commands.
        let body =
            hangs
            ? ": > \(directory.appending("started")); while :; do /bin/sleep 1; done"
            : "printf '%s\\n' \"$@\" > \(directory.appending("arguments"))"
        // Written through a close-on-exec descriptor: a child another test forks meanwhile must
        // not keep the script open for writing, or running it fails with ETXTBSY for as long as
        // that child lives (a PulseAudio or a daemon lives for the whole test).
        let descriptor = open(script, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        try #require(descriptor >= 0)
        let text = Array("#!/bin/sh\n\(body)\n".utf8)
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        try #require(written == text.count)
        return ["PATH": directory.path, "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(directory.appending("bus"))"]
    }

    @MainActor
    @Test("notify-send gets the app's name, the summary and the body, and is reaped")
    func shows() async throws {
        let directory = try TemporaryDirectory(prefix: "ntf")
        defer { directory.remove() }
        let environment = try fakeNotifySend(in: directory)
        let pid = try #require(
            DesktopNotification.show("Arrived at home", body: "-t 0 is not an option", environment: environment))
        #expect(await waitUntil { @Sendable in isGone(pid) })
        let arguments = try String(contentsOfFile: directory.appending("arguments"), encoding: .utf8)
        #expect(arguments == "--app-name=RegionAlerts\n--\nArrived at home\n-t 0 is not an option\n")
    }

    @MainActor
    @Test("a notify-send that hangs is ended after the time limit and reaped")
    func hangs() async throws {
        let directory = try TemporaryDirectory(prefix: "ntf")
        defer { directory.remove() }
        let environment = try fakeNotifySend(in: directory, hangs: true)
        let pid = try #require(
            DesktopNotification.show("Left home", body: "", environment: environment, timeLimit: .seconds(1)))
        // It ran, and hangs for ever: gone, it can only have been ended by the time limit.
        #expect(
            await waitUntil { @Sendable in FileManager.default.fileExists(atPath: directory.appending("started")) })
        #expect(await waitUntil(timeout: .seconds(60)) { @Sendable in isGone(pid) })
    }

    @MainActor
    @Test("without a session bus, or without notify-send, nothing is started")
    func unavailable() throws {
        let directory = try TemporaryDirectory(prefix: "ntf")
        defer { directory.remove() }
        var environment = try fakeNotifySend(in: directory)
        #expect(DesktopNotification.show("x", body: "y", environment: ["PATH": directory.path]) == nil)
        environment["PATH"] = directory.appending("empty")
        #expect(DesktopNotification.show("x", body: "y", environment: environment) == nil)
    }
}

/// Whether a process has been reaped: a zombie still answers `kill(pid, 0)`.
private func isGone(_ pid: pid_t) -> Bool {
    kill(pid, 0) == -1 && errno == ESRCH
}
