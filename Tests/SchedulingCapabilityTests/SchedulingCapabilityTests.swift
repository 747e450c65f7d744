import BackgrounderAppCore
import BackgrounderCore
import BackgrounderProtocol
import BackgrounderScheduling
import BackgrounderSystem
import BackgrounderTestSupport
import Foundation
import Logging
import Testing

/// The scheduling capability's push rules against an embedded core and a manual wall clock:
/// no process, no timer waited for.
@Suite("The scheduling capability on an embedded core")
@AppCoreActor
final class SchedulingCapabilityTests {
    let directory: TemporaryDirectory
    let store: StateStore
    let core = EmbeddedAppCore()
    let scheduling: SchedulingCapability
    /// The capability's wall clock, moved by the test.
    let wallClock = Locked(Date(timeIntervalSince1970: 1_800_000_000))

    static let messenger: BundleID = "org.example.messenger"
    static let silent: JSONValue = .object(["aps": .object(["content-available": .number(1)])])

    init() throws {
        directory = try TemporaryDirectory(prefix: "scheduling-unit")
        store = try StateStore(directory: directory.appending("state"), synchronous: .normal)
        var logger = Logger(label: "scheduling-unit")
        logger.logLevel = .critical
        let wallClock = self.wallClock
        scheduling = SchedulingCapability(store: store, clock: { wallClock.withLock { $0 } }, logger: logger)
        core.capabilities = [scheduling]
        core.add(
            AppManifest(
                bundleIdentifier: Self.messenger, name: "Messenger", executable: "Messenger",
                backgroundModes: [.remoteNotification]),
            state: .suspended)
    }

    deinit {
        directory.remove()
    }

    func pushes() -> Int {
        core.asks.count { $0 == .deliverEvent(Self.messenger, .push) }
    }

    @Test("a visible push does not reach an app that is not in front; a silent one wakes it with a push window")
    func silentPushWakes() throws {
        let visible = PushRequest(bundle: Self.messenger, payload: .object(["aps": .object(["alert": .string("hi")])]))
        let error = #expect(throws: ProtocolError.self) { try scheduling.push(visible, in: core) }
        #expect(error?.code == .invalidState)
        #expect(pushes() == 0)

        let result = try scheduling.push(PushRequest(bundle: Self.messenger, payload: Self.silent), in: core)
        #expect(result.delivered)
        #expect(pushes() == 1)
        #expect(core.asks.contains(.openWindow(Self.messenger, .push)))
    }

    @Test("past its budget the latest push waits, and is delivered once the clock reaches its time, never dropped")
    func pushesOverBudgetWait() throws {
        var deferred: PushResult?
        for _ in 0..<100 {
            let result = try scheduling.push(PushRequest(bundle: Self.messenger, payload: Self.silent), in: core)
            if !result.delivered {
                deferred = result
                break
            }
        }
        let waiting = try #require(deferred, "100 silent pushes all delivered: no budget")
        let until = try #require(waiting.deferredUntil)
        let delivered = pushes()

        // Not yet: the timer's wake before the time delivers nothing.
        wallClock.withLock { $0 = Date(timeIntervalSince1970: until - 1) }
        scheduling.wake(in: core)
        #expect(pushes() == delivered)

        wallClock.withLock { $0 = Date(timeIntervalSince1970: until + 1) }
        scheduling.wake(in: core)
        #expect(pushes() == delivered + 1)
    }

    @Test("a force-quit app is not woken for a silent push")
    func forceQuitIsNotWoken() throws {
        core.apps[Self.messenger]?.forceQuit = true
        core.apps[Self.messenger]?.state = .notRunning
        #expect(throws: ProtocolError.self) {
            try scheduling.push(PushRequest(bundle: Self.messenger, payload: Self.silent), in: core)
        }
        #expect(pushes() == 0)
    }
}

extension SchedulingCapabilityTests {
    @Test(
        "bgctl status counts the task requests by kind; their wake is on the core's timer, and gone once they are cancelled"
    )
    func status() throws {
        let feeds: BundleID = "org.example.feeds"
        core.add(
            AppManifest(
                bundleIdentifier: feeds, name: "Feeds", executable: "Feeds", backgroundModes: [.fetch, .processing],
                permittedTaskIdentifiers: ["refresh", "index"]),
            state: .suspended)
        #expect(core.deadline(of: scheduling) == nil)
        let now = wallClock.withLock { $0.timeIntervalSince1970 }
        for (task, kind) in [("refresh", BackgroundTaskKind.appRefresh), ("index", .processing)] {
            _ = try scheduling.register(feeds, task: task, in: core)
            _ = try scheduling.submit(
                feeds, TaskSubmission(identifier: task, kind: kind, earliestBeginDate: now + 3_600), in: core)
        }

        let status = scheduling.status(in: core)
        #expect(status.name == "scheduling")
        #expect(status.counts["appRefresh"] == 1 && status.counts["processing"] == 1, "\(status.counts)")
        #expect(status.summary.hasPrefix("1 app refresh and 1 processing task(s) requested"), "\(status.summary)")
        #expect(core.deadline(of: scheduling) != nil, "two tasks an hour away and no wake set")

        _ = scheduling.cancel(feeds, task: nil, in: core)
        let after = scheduling.status(in: core)
        #expect(after.counts["appRefresh"] == 0 && after.counts["processing"] == 0)
        #expect(core.deadline(of: scheduling) == nil, "a wake is left set for nothing")
    }
}
