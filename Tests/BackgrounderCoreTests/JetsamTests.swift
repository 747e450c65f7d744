import BackgrounderCore
import Testing

@Suite("Jetsam order", .timeLimit(.minutes(5)))
struct JetsamTests {
    private func app(
        _ id: BundleID,
        _ state: ApplicationState,
        _ megabytes: Int,
        foreground: Bool = false,
        audio: Bool = false
    ) -> Jetsam.Candidate {
        Jetsam.Candidate(
            identifier: id, state: state, residentBytes: megabytes << 20, isForeground: foreground, playsAudio: audio)
    }

    @Test("suspended first, largest first; then background; then audio; the foreground app last")
    func order() {
        let candidates = [
            app("front", .active, 900, foreground: true),
            app("music", .background, 50, audio: true),
            app("busy", .background, 400),
            app("small", .suspended, 10),
            app("large", .suspended, 300),
        ]
        #expect(Jetsam.order(candidates) == ["large", "small", "busy", "music", "front"])
    }

    @Test("apps that are not running are never chosen; ties go by identifier")
    func notRunningAndTies() {
        let candidates = [app("b", .suspended, 10), app("gone", .notRunning, 999), app("a", .suspended, 10)]
        #expect(Jetsam.order(candidates) == ["a", "b"])
    }

    @Test("nothing running, nothing to end")
    func empty() {
        #expect(Jetsam.order([]).isEmpty)
    }
}

@Suite("Event routing (relaunch rules)", .timeLimit(.minutes(5)))
struct EventRoutingTests {
    private func manifest(_ modes: Set<BackgroundMode>) -> AppManifest {
        AppManifest(bundleIdentifier: "org.example.app", name: "App", executable: "App", backgroundModes: modes)
    }

    @Test(
        "an event reaches an app by its state",
        arguments: [
            (ApplicationState.notRunning, EventRouting.Decision.launchInBackground),
            (.suspended, .wake),
            (.background, .deliver),
            (.active, .deliver),
        ]
    )
    func byState(state: ApplicationState, decision: EventRouting.Decision) {
        #expect(
            EventRouting.decide(.push, for: manifest([.remoteNotification]), state: state, forceQuit: false) == decision
        )
    }

    @Test("an event needs its background mode")
    func needsMode() {
        let decision = EventRouting.decide(
            .fetch, for: manifest([.remoteNotification]), state: .notRunning, forceQuit: false)
        guard case .refuse(let why) = decision else {
            Issue.record("a fetch reached an app without the fetch mode")
            return
        }
        #expect(why.contains("fetch background mode"))
    }

    @Test(
        "a force-quit app is relaunched only for location and region events",
        arguments: [LaunchReason.push, .fetch, .location, .region, .download]
    )
    func forceQuit(event: LaunchReason) {
        let app = manifest([.remoteNotification, .fetch, .location])
        let decision = EventRouting.decide(event, for: app, state: .notRunning, forceQuit: true)
        if event == .location || event == .region {
            #expect(decision == .launchInBackground)
        } else {
            #expect(decision != .launchInBackground)
        }
    }
}
