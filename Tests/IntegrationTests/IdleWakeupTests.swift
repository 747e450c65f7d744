import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Wakeups are battery: a daemon with nothing to do must not run at all. Counted, not timed:
/// every context switch of every thread of the daemon over a quiet window, from /proc.
@Suite(
    "an idle daemon makes no wakeup",
    .enabled(
        if: Locations.hasProgram("pulseaudio") && Locations.hasProgram("gpsfake"),
        "scripts/setup.sh installs PulseAudio and gpsd"),
    .timeLimit(.minutes(5)), .tearsDown)
struct IdleWakeupTests {
    static let apps = 20
    /// Long enough that any periodic work (the old 5 s condition polling, a 1 s monitor, a
    /// reconnection backoff) would show several times.
    static let window: Duration = .seconds(15)

    @Test(
        "20 suspended apps, PulseAudio connected, gpsd there but not needed, no session bus: no thread of the daemon wakes in 15 s"
    )
    func idleDaemonSleeps() async throws {
        let directory = try TemporaryDirectory(prefix: "idle")
        atTeardown { directory.remove() }
        let pulse = try await PulseAudioServer(directory: directory)
        let gpsd = try await GPSDFake(log: Locations.gpsFixture("short-walk.nmea"), directory: directory)
        atTeardown {
            await gpsd.stop()
            await pulse.stop()
        }
        let bundles = directory.appending("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let ids = try (0..<Self.apps).map { index in
            try TestAppBundles.make(String(format: "Idle%02d", index), into: bundles)
        }
        // Power from a tree of its own (inotify): the kernel's uevents for other devices, which
        // other tests make (loop devices for data volumes), would wake a real uevent socket.
        // No power supplies, so external power, as on a desktop.
        let power = directory.appending("power")
        try FileManager.default.createDirectory(atPath: power, withIntermediateDirectories: true)
        // A network namespace of its own, where it can: a route or link another process
        // changes on the host (a router advertisement, a suite's veth) is not this daemon's
        // idleness to judge. gpsd is then out of reach, which nothing here needs.
        let namespace = NetworkNamespace.isAvailable ? try NetworkNamespace() : nil
        atTeardown { namespace?.remove() }
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], gpsd: gpsd.address,
            extraArguments: LifecycleTests.fastPolicy + [
                "--pulse-server", pulse.server, "--power-supply-dir", power,
            ],
            // As a daemon started outside a login session (the bench, a root shell) is: no
            // session bus can be found, so none is waited for.
            launcher: (namespace?.launcher ?? []) + ["env", "-u", "DBUS_SESSION_BUS_ADDRESS", "-u", "XDG_RUNTIME_DIR"])
        atTeardown { await daemon.stop() }
        for id in ids {
            _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        }
        _ = try daemon.client().request(.home)
        let suspended = try await waitUntil(timeout: .seconds(120)) {
            guard case .apps(let list) = try daemon.client().request(.ps).body else { return false }
            return list.apps.count == Self.apps && list.apps.allSatisfy { $0.state == .suspended }
        }
        #expect(suspended, "\(daemon.log.suffix(3000))")
        let status = try daemon.status()
        #expect(status.pulseAudio.state == .connected)
        #expect(status.gpsd.detail == "not watched: no app needs fixes")
        #expect(status.conditions?.eventsUnavailable == nil)
        #expect(
            status.desktop?.sessionBus.detail?.hasSuffix("not tried again until the daemon is started with one") == true
        )
        // Each request's connection is closed after its reply; the daemon sees the last one go
        // at once, well within this second.
        try await Task.sleep(for: .seconds(1))

        let before = ThreadWakeups(pid: daemon.pid)
        try await Task.sleep(for: Self.window)
        let woke = ThreadWakeups(pid: daemon.pid).since(before)
        #expect(before.threads.count > 1)
        #expect(
            woke.isEmpty,
            "threads that woke in \(Self.window): \(woke.map { "\($0.name) (\($0.tid)) \($0.switches)" })\n\(daemon.log.suffix(2000))"
        )
    }

    @Test(
        "PulseAudio and both D-Bus buses absent: each is waited for with no timer, nothing wakes, and each is connected when its socket appears",
        .enabled(if: SessionBus.isAvailable, "scripts/setup.sh installs dbus-daemon"))
    func absentServersCostNothing() async throws {
        let directory = try TemporaryDirectory(prefix: "absent")
        atTeardown { directory.remove() }
        let power = directory.appending("power")
        try FileManager.default.createDirectory(atPath: power, withIntermediateDirectories: true)
        let namespace = NetworkNamespace.isAvailable ? try NetworkNamespace() : nil
        atTeardown { namespace?.remove() }
        // Where each server will be: PulseAudio's runtime directory does not exist yet either.
        let pulseSocket = directory.appending("pulse/native")
        let sessionSocket = directory.appending("session-bus")
        let systemSocket = directory.appending("system-bus")
        let daemon = try await DaemonProcess(
            directory: directory, pulseServer: "unix:" + pulseSocket,
            extraArguments: ["--power-supply-dir", power],
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + sessionSocket,
                "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=" + systemSocket,
            ],
            launcher: namespace?.launcher ?? [])
        atTeardown { await daemon.stop() }

        // An absent socket is waited for at once, with no timed retry first.
        let waiting = try await waitUntil(timeout: .seconds(120)) {
            let status = try daemon.status()
            return status.pulseAudio.detail?.hasSuffix("waiting for \(pulseSocket) to appear") == true
                && status.desktop?.sessionBus.detail?.hasSuffix("waiting for \(sessionSocket) to appear") == true
                && status.desktop?.systemBus.detail?.hasSuffix("waiting for \(systemSocket) to appear") == true
        }
        #expect(waiting, "\(String(describing: try? daemon.status()))\n\(daemon.log.suffix(3000))")
        try await Task.sleep(for: .seconds(1))
        let before = ThreadWakeups(pid: daemon.pid)
        try await Task.sleep(for: Self.window)
        let woke = ThreadWakeups(pid: daemon.pid).since(before)
        #expect(
            woke.isEmpty,
            "threads that woke in \(Self.window): \(woke.map { "\($0.name) (\($0.tid)) \($0.switches)" })\n\(daemon.log.suffix(2000))"
        )

        // No timed retry is left, so only the sockets' creation can bring the connections.
        let session = try await SessionBus(directory: directory, name: "session-bus")
        let system = try await SessionBus(directory: directory, name: "system-bus")
        let pulse = try await PulseAudioServer(directory: directory)
        atTeardown {
            await pulse.stop()
            await session.stop()
            await system.stop()
        }
        #expect(pulse.server == "unix:" + pulseSocket)
        let connected = try await waitUntil(timeout: .seconds(30)) {
            let status = try daemon.status()
            return status.pulseAudio.state == .connected && status.desktop?.sessionBus.state == .connected
                && status.desktop?.systemBus.state == .connected
        }
        #expect(connected, "\(String(describing: try? daemon.status()))\n\(daemon.log.suffix(3000))")
    }
}
