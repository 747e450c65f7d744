import BackgrounderCore
import Testing

@Suite("App environment and app uids", .timeLimit(.minutes(5)))
struct AppSandboxRulesTests {
    static let daemonEnvironment = [
        "PATH": "/root/bin:/usr/sbin", "HOME": "/root", "LANG": "de_DE.UTF-8", "TZ": "Europe/Berlin",
        "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/0/bus", "AWS_SECRET_ACCESS_KEY": "x",
        "BACKGROUNDER_TEST_CANARY": "secret", "PULSE_SERVER": "unix:/p", "LD_PRELOAD": "/evil.so",
    ]

    static func make(_ daemon: [String: String]) -> [String: String] {
        AppEnvironment.make(
            bundleIdentifier: "org.example.app", launchReason: .push, dataDirectory: "/s/data/org.example.app",
            temporaryDirectory: "/s/tmp/org.example.app", socketPath: "/run/bg/d.sock", daemonEnvironment: daemon)
    }

    @Test("an app gets the listed variables only: LANG and TZ from the daemon, nothing else of its environment")
    func environment() {
        let environment = Self.make(Self.daemonEnvironment)
        #expect(Set(environment.keys).isSubset(of: Set(AppEnvironment.names)))
        #expect(environment["PATH"] == "/usr/local/bin:/usr/bin:/bin")
        #expect(environment["HOME"] == "/s/data/org.example.app")
        #expect(environment["BACKGROUNDER_DATA_DIR"] == "/s/data/org.example.app")
        #expect(environment["TMPDIR"] == "/s/tmp/org.example.app")
        #expect(environment["LANG"] == "de_DE.UTF-8")
        #expect(environment["TZ"] == "Europe/Berlin")
        #expect(environment["BACKGROUNDER_FD"] == "3")
        #expect(environment["BACKGROUNDER_LAUNCH_REASON"] == "push")
        #expect(environment["BACKGROUNDER_BUNDLE_ID"] == "org.example.app")
        #expect(environment["BACKGROUNDER_SOCKET"] == "/run/bg/d.sock")
        for secret in [
            "DBUS_SESSION_BUS_ADDRESS", "AWS_SECRET_ACCESS_KEY", "BACKGROUNDER_TEST_CANARY", "PULSE_SERVER",
            "LD_PRELOAD",
        ] {
            #expect(environment[secret] == nil, "\(secret) passed")
        }
    }

    @Test("without LANG the app gets C.UTF-8; without TZ none")
    func defaults() {
        let environment = Self.make(["PATH": "/x"])
        #expect(environment["LANG"] == "C.UTF-8")
        #expect(environment["TZ"] == nil)
    }

    @Test("the standard uid range stays clear of systemd's DynamicUser range and of root")
    func standardRange() {
        let range = AppUserRange.standard
        #expect(range.first > 65519)
        #expect(!range.contains(0) && !range.contains(61184) && !range.contains(65534))
        #expect(range.description == "2000000000-2000065535")
    }

    @Test("the first free uid skips assigned ones and ones the system uses; an exhausted range gives none")
    func allocation() {
        let range = AppUserRange(first: 100, last: 104)
        #expect(range.firstFree(assigned: []) == 100)
        #expect(range.firstFree(assigned: [100, 101]) == 102)
        #expect(range.firstFree(assigned: [100], isTaken: { $0 == 101 || $0 == 102 }) == 103)
        #expect(range.firstFree(assigned: [100, 101, 102, 103, 104]) == nil)
        #expect(range.firstFree(assigned: [100, 101, 102, 103], isTaken: { $0 == 104 }) == nil)
        let top = AppUserRange(first: UInt32.max - 1, last: UInt32.max)
        #expect(top.firstFree(assigned: [UInt32.max - 1]) == UInt32.max)
    }
}
