import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Synchronization
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

#if canImport(Glibc)
    import Glibc
#endif

/// `WATCHDOG=1` is a real liveness check of the app core: a hung core stops the pings (so
/// systemd restarts the daemon), and they resume when it recovers.
///
/// How the core is made to hang: with code the daemon really runs on it, not a test-only
/// switch in the daemon. A policy plug-in is third-party code the daemon calls on its app core
/// (the scheduling numbers), so a plug-in that blocks in a system call hangs the core exactly
/// as a real fault would; Tests/Fixtures/HangingPolicy is one, built here with the system's C
/// compiler, blocking on a FIFO the test holds. A debug-only hook guarded by an environment
/// variable was the alternative, and it would be code in the daemon that a normal run must
/// never reach; the plug-in needs none. The probe itself (``LivenessProbe``) is also tested
/// alone, with a question that never answers.
@Suite("The watchdog", .timeLimit(.minutes(5)), .tearsDown)
struct WatchdogTests {
    static let pushed = "org.backgrounder.tests.pushed"
    static let policy = "org.example.hanging"

    /// A probe whose core counts the questions it is asked and answers `answer` only once
    /// the test yields to `release`.
    fileprivate static func gatedProbe(answering answer: String)
        -> (probe: LivenessProbe<String>, asked: QuestionCount, release: AsyncStream<Void>.Continuation)
    {
        let asked = QuestionCount()
        let (gate, release) = AsyncStream.makeStream(of: Void.self)
        let probe = LivenessProbe<String> {
            asked.value.add(1, ordering: .relaxed)
            for await _ in gate { break }
            return answer
        }
        return (probe, asked, release)
    }

    @Test("the probe returns the core's answer as soon as it comes")
    func answered() async {
        let probe = LivenessProbe { "3 apps running" }
        #expect(await probe.answer(within: .seconds(60)) == "3 apps running")
    }

    @Test(
        "a core that does not answer: each check returns nil, the question is asked once, and its late answer ends it")
    func hungCore() async {
        let (probe, asked, release) = Self.gatedProbe(answering: "recovered")
        for _ in 0..<3 {
            #expect(await probe.answer(within: .milliseconds(20)) == nil)
        }
        #expect(asked.value.load(ordering: .relaxed) == 1, "a hung core is not asked again")
        release.yield()
        release.finish()
        // The answer comes to the check waiting then, or (had it come between checks) the next
        // check asks anew and is answered: either way a recovered core answers.
        #expect(await probe.answer(within: .seconds(60)) == "recovered")
        #expect(asked.value.load(ordering: .relaxed) <= 2)
    }

    @Test("checks waiting at once (two bgctl status) share one question, and each gets its answer")
    func concurrentChecks() async {
        let (probe, asked, release) = Self.gatedProbe(answering: "2 apps running")
        async let first = probe.answer(within: .seconds(60))
        async let second = probe.answer(within: .seconds(60))
        // Both wait for the one question; then the core answers.
        #expect(await waitUntil { probe.waitingChecks == 2 }, "\(probe.waitingChecks) checks waiting")
        release.yield()
        release.finish()
        let answers = await [first, second]
        #expect(answers == ["2 apps running", "2 apps running"])
        #expect(asked.value.load(ordering: .relaxed) == 1)
    }

    @Test(
        "a policy plug-in that hangs the app core stops the WATCHDOG=1 pings; they resume when it returns",
        .enabled(if: Locations.hasProgram("cc"), "no C compiler to build the hanging plug-in"),
        // With one thread in the daemon's cooperative pool, the blocked core holds it and the
        // watchdog loop cannot even say that it missed a ping.
        .enabled(if: ProcessInfo.processInfo.activeProcessorCount >= 2, "needs two processors")
    )
    func hungCoreStopsThePings() async throws {
        let directory = try TemporaryDirectory(prefix: "wdog")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        try PolicyPluginTests.makePolicyBundle(
            "Hanging", id: Self.policy, symbol: "hanging_policy", scheduling: "hanging_scheduling", in: bundles
        ) { library in
            let built = try Tool.run(
                "/usr/bin/env",
                [
                    "cc", "-shared", "-fPIC", "-Wall", "-Werror", "-o", library,
                    "-I", Locations.repositoryRoot + "/Sources/CBackgrounderPolicy/include",
                    Locations.repositoryRoot + "/Tests/Fixtures/HangingPolicy/hanging_policy.c",
                ])
            #expect(built.status == 0, "\(built.output)")
        }
        try TestAppBundles.make("Pushed", modes: ["remote-notification"], into: bundles)
        let gate = directory.appending("gate")
        #expect(mkfifo(gate, 0o600) == 0)
        let listener = try NotifyListener(path: directory.appending("notify.sock"))
        atTeardown { listener.close() }
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: ["--policy", Self.policy],
            environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "400000", "HANGING_POLICY_GATE": gate])
        atTeardown {
            Self.release(gate)
            await daemon.stop()
        }
        func pings() -> Int { listener.received.filter { $0.contains("WATCHDOG=1") }.count }
        func missed() -> Int { daemon.log.components(separatedBy: "the app core did not answer within").count - 1 }
        #expect(await waitUntil { pings() >= 2 }, "\(daemon.log)")
        #expect(try daemon.status().policy == Self.policy)

        // A silent push asks the plug-in for the app's numbers on the core, which hangs there.
        let pusher = try daemon.client(timeout: .seconds(60))
        let silent = JSONValue.object(["aps": .object(["content-available": .number(1)])])
        try pusher.send(
            ClientMessage(id: .number(1), .push(PushRequest(bundle: BundleID(Self.pushed), payload: silent))))
        #expect(
            await waitUntil(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: gate + ".entered") },
            "the plug-in was not asked: \(daemon.log)")

        // Missed checks are the daemon's own clock: each is one ping interval without a ping.
        // The count is taken after the second (a ping answered just before the hang has
        // arrived by then) and must not move through three more.
        #expect(await waitUntil(timeout: .seconds(60)) { missed() >= 2 }, "\(daemon.log)")
        let hung = pings()
        #expect(await waitUntil(timeout: .seconds(60)) { missed() >= 5 }, "\(daemon.log)")
        #expect(pings() == hung, "pings while the core was hung: \(listener.received.suffix(5))")
        #expect(daemon.isRunning)

        // The plug-in returns: the push is answered and the pings resume.
        #expect(await waitUntil { Self.release(gate) }, "the plug-in does not hold the gate")
        let reply = try pusher.receive()
        #expect(reply.id == .number(1), "\(reply)")
        #expect(await waitUntil(timeout: .seconds(60)) { pings() > hung }, "\(daemon.log)")
        guard case .apps = try daemon.client().request(.ps).body else {
            Issue.record("the core does not answer PS after recovering")
            return
        }
    }

    /// Lets the plug-in return: opens the FIFO for writing, which succeeds only while the
    /// plug-in holds (or waits on) its reading end, and writes a byte.
    /// - Returns: Whether the plug-in was there to be released.
    @discardableResult
    private static func release(_ gate: String) -> Bool {
        let fifo = open(gate, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fifo >= 0 else { return false }
        _ = write(fifo, "x", 1)
        close(fifo)
        return true
    }
}

/// How many times a probe asked its question, from any task.
private final class QuestionCount: Sendable {
    let value = Atomic(0)
}
