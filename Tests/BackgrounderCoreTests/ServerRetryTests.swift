import BackgrounderCore
import Testing

@Suite("absent servers: which socket to watch, and when to try again", .timeLimit(.minutes(5)))
struct ServerRetryTests {
    @Test("a D-Bus address's first unix path, escaped as D-Bus escapes it; the defaults sd-bus uses")
    func dbusPaths() {
        #expect(
            ServerSocketPath.dbus(address: "unix:path=/run/user/1000/bus", system: false, runtimeDirectory: nil)
                == "/run/user/1000/bus")
        #expect(
            ServerSocketPath.dbus(
                address: "unix:guid=0123,path=/tmp/my%20bus;tcp:host=localhost,port=1", system: false,
                runtimeDirectory: nil) == "/tmp/my bus")
        #expect(
            ServerSocketPath.dbus(address: nil, system: false, runtimeDirectory: "/run/user/7") == "/run/user/7/bus")
        #expect(
            ServerSocketPath.dbus(address: nil, system: true, runtimeDirectory: nil) == "/run/dbus/system_bus_socket")
        // Nothing single to watch.
        #expect(
            ServerSocketPath.dbus(address: "unix:abstract=/tmp/dbus-x", system: false, runtimeDirectory: "/r") == nil)
        #expect(
            ServerSocketPath.dbus(address: "tcp:host=h,port=1;unix:path=/b", system: true, runtimeDirectory: nil) == nil
        )
        #expect(ServerSocketPath.dbus(address: nil, system: false, runtimeDirectory: nil) == nil)
        #expect(ServerSocketPath.dbus(address: "unix:path=/x%2", system: false, runtimeDirectory: nil) == nil)
        #expect(ServerSocketPath.dbus(address: "unix:path=/x%+f", system: false, runtimeDirectory: nil) == nil)
        #expect(ServerSocketPath.dbus(address: "unix:path=/x%2F%41", system: false, runtimeDirectory: nil) == "/x/A")
        #expect(ServerSocketPath.dbus(address: "unix:path=relative", system: false, runtimeDirectory: nil) == nil)
    }

    @Test("a PulseAudio server given as one Unix socket, else libpulse's runtime paths")
    func pulsePaths() {
        #expect(
            ServerSocketPath.pulse(server: "unix:/tmp/p/native", runtimePath: nil, runtimeDirectory: nil)
                == "/tmp/p/native")
        #expect(
            ServerSocketPath.pulse(server: "/tmp/p/native", runtimePath: "/ignored", runtimeDirectory: nil)
                == "/tmp/p/native")
        #expect(
            ServerSocketPath.pulse(server: nil, runtimePath: "/tmp/rp", runtimeDirectory: "/run/user/1")
                == "/tmp/rp/native")
        #expect(
            ServerSocketPath.pulse(server: nil, runtimePath: nil, runtimeDirectory: "/run/user/1")
                == "/run/user/1/pulse/native")
        #expect(ServerSocketPath.pulse(server: "tcp:host:4713", runtimePath: nil, runtimeDirectory: "/r") == nil)
        #expect(ServerSocketPath.pulse(server: "unix:/a /b", runtimePath: nil, runtimeDirectory: "/r") == nil)
        #expect(ServerSocketPath.pulse(server: "/a\t/b", runtimePath: nil, runtimeDirectory: "/r") == nil)
        #expect(ServerSocketPath.pulse(server: "{machine}unix:/a", runtimePath: nil, runtimeDirectory: "/r") == nil)
        #expect(ServerSocketPath.pulse(server: nil, runtimePath: nil, runtimeDirectory: nil) == nil)
    }

    @Test(
        "an absent socket that is watched is waited for with no timer at all; otherwise waits double to the limit, then every limit"
    )
    func schedule() {
        var watched = RetrySchedule(first: .milliseconds(250), limit: .seconds(2))
        let steps = (0..<3).map { _ in watched.next(socketWatched: true) }
        #expect(steps == [nil, nil, nil])
        // A socket that appeared but refuses (bound, not yet listening): the timer.
        #expect(watched.next(socketWatched: false) == .milliseconds(250))
        #expect(watched.next(socketWatched: false) == .milliseconds(500))
        watched.reset()
        #expect(watched.next(socketWatched: false) == .milliseconds(250))

        var unwatched = RetrySchedule(first: .seconds(1), limit: .seconds(4))
        let waits = (0..<5).map { _ in unwatched.next(socketWatched: false) }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(4), .seconds(4)])
    }
}
