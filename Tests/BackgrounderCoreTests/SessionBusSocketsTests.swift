import BackgrounderCore
import Testing

@Suite("Session bus sockets an app's sandbox covers")
struct SessionBusSocketsTests {
    @Test("every unix:path of the address, escapes decoded, then $XDG_RUNTIME_DIR/bus, each once")
    func pathsFromTheAddress() {
        let environment = [
            "DBUS_SESSION_BUS_ADDRESS":
                "unix:path=/run/user/1000/bus,guid=abc;unix:abstract=/tmp/dbus-x;tcp:host=localhost,port=1;unix:path=/tmp/with%20space",
            "XDG_RUNTIME_DIR": "/run/user/1000",
        ]
        #expect(SessionBusSockets.paths(in: environment) == ["/run/user/1000/bus", "/tmp/with space"])
    }

    @Test("no address: the default socket; a relative or malformed path is left out")
    func defaultsAndBadValues() {
        #expect(SessionBusSockets.paths(in: ["XDG_RUNTIME_DIR": "/run/user/7"]) == ["/run/user/7/bus"])
        #expect(SessionBusSockets.paths(in: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=relative/bus"]).isEmpty)
        #expect(SessionBusSockets.paths(in: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/x%zz"]).isEmpty)
        #expect(SessionBusSockets.paths(in: [:]).isEmpty)
    }
}
