import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

/// Which app a cgroup path belongs to: the rule that decides who may act as a person.
@Suite("Container membership", .timeLimit(.minutes(5)), .tearsDown)
struct ContainerMembershipTests {
    let mount = "/sys/fs/cgroup/unified"
    let base = "/sys/fs/cgroup/unified/user.slice/backgrounder.abc123"

    func membership(_ cgroup: String) -> ContainerMembership {
        CgroupFreezer.membership(ofCgroup: cgroup, base: base, mount: mount)
    }

    @Test("an app's own cgroup and any sub-cgroup it made are the app's")
    func appAndBelow() {
        #expect(membership("/user.slice/backgrounder.abc123/app-org.example.a") == .app("org.example.a"))
        #expect(membership("/user.slice/backgrounder.abc123/app-org.example.a/escape/deeper") == .app("org.example.a"))
    }

    @Test("a group of the daemon's that is no app's, and another daemon's app, are never outside")
    func neverAPerson() {
        #expect(
            membership("/user.slice/backgrounder.abc123/probe-12")
                == .unnamedApp("/user.slice/backgrounder.abc123/probe-12"))
        let other = "/user.slice/backgrounder.ffff/app-org.example.b"
        #expect(membership(other) == .unnamedApp(other))
        #expect(membership(other + "/sub") == .unnamedApp(other + "/sub"))
    }

    @Test("a daemon in the root cgroup names its apps too")
    func rootCgroup() {
        let base = "/sys/fs/cgroup/unified//backgrounder.abc123"
        #expect(
            CgroupFreezer.membership(ofCgroup: "/backgrounder.abc123/app-org.example.a", base: base, mount: mount)
                == .app("org.example.a"))
    }

    @Test("the daemon's own group, siblings and the root are outside")
    func outside() {
        #expect(membership("/user.slice") == .outside)
        #expect(membership("/") == .outside)
        #expect(
            membership("/user.slice/backgrounder.abc123x/app-x")
                == .unnamedApp("/user.slice/backgrounder.abc123x/app-x"))
        #expect(membership("/user.slice/session-1.scope") == .outside)
    }
}
