import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// The relaunch rules with real processes: a system-terminated app is relaunched for its
/// events, a force-quit one is not (except for location), a suspended one is woken.
@Suite("Relaunch rules", .timeLimit(.minutes(5)), .tearsDown)
struct RelaunchTests {
    typealias Running = LifecycleTests.Running

    private func pushApp(_ prefix: String, behavior: String = "idle") async throws -> (Running, String) {
        var id = ""
        let running = try await Running(prefix: prefix) { bundles in
            id = try TestAppBundles.make(
                "Pushy", behavior: behavior, modes: ["remote-notification", "location"], into: bundles)
        }
        return (running, id)
    }

    @Test("a system-terminated app is relaunched into the background for a push")
    func systemTerminatedIsRelaunched() async throws {
        let (running, id) = try await pushApp("push", behavior: "never-end-task")
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("began task") })
        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(id).lastExit?.reason == "background task overran" })

        guard case .done(let done) = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .push))) else {
            Issue.record("the push was refused")
            return
        }
        #expect(done.detail.contains("relaunched"))
        #expect(await waitUntil { running.appLog(id).contains("launched push") }, "\(running.appLog(id))")
        // It runs in the background: seen there by `ps`, or, on a machine so loaded that its
        // four seconds of background time pass between two looks, ended once more for
        // overrunning them (which only a background app can).
        let ranInBackground = try await waitUntil {
            if [.background, .suspended].contains(try running.app(id).state) { return true }
            let relaunched = running.appLog(id).components(separatedBy: "launched push").dropFirst().joined()
            return relaunched.contains("began task")
                && running.daemon.log.components(separatedBy: "terminating: background task overran").count > 2
        }
        #expect(ranInBackground, "\(running.daemon.log.suffix(3000))")
        #expect(try running.app(id).state != .active)
    }

    @Test("a force-quit app is not relaunched for a push, but is for a location event")
    func forceQuitIsNotRelaunched() async throws {
        let (running, id) = try await pushApp("fq")
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        _ = try running.request(.quit(AppReference(bundle: BundleID(id))))
        #expect(try await waitUntil { try running.app(id).state == .notRunning })

        guard case .error(let refused) = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .push)))
        else {
            Issue.record("a force-quit app was relaunched for a push")
            return
        }
        #expect(refused.message.contains("force-quit"))
        #expect(try running.app(id).state == .notRunning)

        guard case .done = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .location))) else {
            Issue.record("a location event did not relaunch the force-quit app")
            return
        }
        // What the app saw: launched by the person, then once more, for location. Had the push
        // launched it, a `launched push` would come between (or, still running, it would have
        // been woken for location rather than launched).
        #expect(await waitUntil { running.appLog(id).contains("launched location") }, "\(running.appLog(id))")
        #expect(Self.launches(running.appLog(id)) == ["user", "location"], "\(running.appLog(id))")
    }

    /// The reasons an app's log says it was launched for (`launched REASON t=...`), in order.
    static func launches(_ log: String) -> [String] {
        log.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("launched ") else { return nil }
            return line.dropFirst("launched ".count).split(separator: " ").first.map(String.init)
        }
    }

    @Test("an event an app did not declare a mode for does not reach it")
    func undeclaredMode() async throws {
        let (running, id) = try await pushApp("mode")
        atTeardown { await running.tearDown() }
        guard case .error(let refused) = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .fetch)))
        else {
            Issue.record("a fetch reached an app without the fetch mode")
            return
        }
        #expect(refused.message.contains("does not declare the fetch background mode"))
    }

    @Test("a suspended app is woken by a push, hears it, and is suspended again after the grace")
    func suspendedIsWoken() async throws {
        let (running, id) = try await pushApp("wake")
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        let pid = try running.app(id).pid

        guard case .done(let done) = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .push))) else {
            Issue.record("the push was refused")
            return
        }
        #expect(done.detail.contains("woke"))
        #expect(await waitUntil { running.appLog(id).contains("received push") })
        #expect(try running.app(id).pid == pid, "woken, not relaunched")
        #expect(try await waitUntil { try running.app(id).state == .suspended })
    }
}
