import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The scheduling samples under the real daemon: FeedReader fetching from an HTTP server in
/// this process on background fetch and on its app-refresh task, and Compactor compacting its
/// SQLite file in a processing task. `bgctl simulate` starts the work, as Xcode's debugger
/// commands do on iOS.
@Suite("FeedReader and Compactor under the daemon", .timeLimit(.minutes(5)), .tearsDown)
struct SchedulingSamplesTests {
    static let reader = "org.backgrounder.samples.feedreader"
    static let refreshTask = "org.backgrounder.samples.feedreader.refresh"
    static let compactor = "org.backgrounder.samples.compactor"
    static let compactTask = "org.backgrounder.samples.compactor.compact"

    /// Windows far longer than any wait here, so an app found suspended completed its window
    /// rather than ran out of it; a daily fetch budget of 0 keeps the scheduler from fetching
    /// on its own, so every fetch is one the test asked for.
    static let scheduling = [
        "--scheduling", "fetchWindow=600,appRefreshWindow=600,processingMaximum=600,dailyFetchBudget=0",
    ]

    /// Runs `body` with the daemon and one sample, and stops the daemon and removes its
    /// directory afterwards, also when `body` throws.
    static func withSample(
        _ sample: String, prefix: String, extraArguments: [String] = [],
        _ body: (LifecycleTests.Running) async throws -> Void
    ) async throws {
        let running = try await LifecycleTests.Running(prefix: prefix, extraArguments: scheduling + extraArguments) {
            bundles in
            try SampleBundles.assemble(sample, into: bundles)
        }
        do {
            try await body(running)
        } catch {
            await running.tearDown()
            throw error
        }
        await running.tearDown()
    }

    /// The lines of an app's log that start with `prefix`.
    static func lines(_ running: LifecycleTests.Running, _ id: String, _ prefix: String) -> [Substring] {
        running.appLog(id).split(separator: "\n").filter { $0.hasPrefix(prefix) }
    }

    /// Opens the app, sends it home and waits until it is suspended with nothing more to say.
    static func openAndSuspend(_ running: LifecycleTests.Running, _ id: String, opened: String) async throws {
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains(opened) }, "app log: \(running.appLog(id))")
        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(id).state == .suspended }, "\(running.daemon.log)")
        #expect(await LifecycleTests.logSettles { running.appLog(id) })
    }

    /// Sends a request and waits for the next line starting with `prefix` in the app's log,
    /// then for the app to be suspended again.
    /// - Returns: That line.
    static func trigger(
        _ body: ClientMessage.Body, _ running: LifecycleTests.Running, _ id: String, expecting prefix: String
    ) async throws -> String {
        let before = lines(running, id, prefix).count
        guard case .done = try running.request(body) else { throw HarnessError("\(body) refused") }
        #expect(
            await waitUntil { lines(running, id, prefix).count > before }, "app log: \(running.appLog(id))")
        #expect(
            try await waitUntil { try running.app(id).state == .suspended },
            "not suspended after completing: \(running.daemon.log)")
        return String(lines(running, id, prefix).last ?? "")
    }

    /// Points FeedReader at a URL with its own command line, as a person does.
    static func subscribe(_ running: LifecycleTests.Running, to url: String) async throws {
        let run = try await CLIRun.run(
            Locations.product("FeedReader"), ["subscribe", url, "--state-dir", running.daemon.stateDirectory])
        #expect(run.status == 0, "\(run)")
    }

    // MARK: FeedReader

    @Test("background fetch: the suspended reader fetches, reports newData then noData (304), and is suspended")
    func fetchWhileSuspended() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.serve("/feed.xml", Self.feed(["1"]))
        try await Self.withSample("FeedReader", prefix: "feed") { running in
            try await Self.subscribe(running, to: server.baseURL + "/feed.xml")
            try await Self.openAndSuspend(running, Self.reader, opened: "opened: newData (1 items, 1 new)")

            server.serve("/feed.xml", Self.feed(["2", "1"]))
            let fetch = ClientMessage.Body.wake(WakeRequest(bundle: BundleID(Self.reader), reason: .fetch))
            let first = try await Self.trigger(fetch, running, Self.reader, expecting: "background fetch: ")
            #expect(first == "background fetch: newData (2 items, 1 new)")
            let second = try await Self.trigger(fetch, running, Self.reader, expecting: "background fetch: ")
            #expect(second == "background fetch: noData (not modified, 2 items)")
            #expect(server.requests.last?.status == 304)
            #expect(server.requests.last?.ifNoneMatch == "\"v2\"")

            let stored = try String(
                contentsOfFile: running.dataDirectory(Self.reader) + "/items.json", encoding: .utf8)
            #expect(stored.contains("\"title\" : \"Item 2\""))
        }
    }

    @Test("a feed from a file in the sandboxed app's data directory: a change is found by its content")
    func fetchFromFile() async throws {
        try await Self.withSample("FeedReader", prefix: "feedfile") { running in
            let feed = running.dataDirectory(Self.reader) + "/feed.xml"
            try await Self.subscribe(running, to: feed)
            // World-readable: under a root daemon the app has a uid of its own.
            try Self.write(Self.feed(["1"]), to: feed)
            try await Self.openAndSuspend(running, Self.reader, opened: "opened: newData (1 items, 1 new)")

            try Self.write(Self.feed(["2", "1"]), to: feed)
            let fetch = ClientMessage.Body.wake(WakeRequest(bundle: BundleID(Self.reader), reason: .fetch))
            let first = try await Self.trigger(fetch, running, Self.reader, expecting: "background fetch: ")
            #expect(first == "background fetch: newData (2 items, 1 new)")
            let second = try await Self.trigger(fetch, running, Self.reader, expecting: "background fetch: ")
            #expect(second == "background fetch: noData (same content, 2 items)")
        }
    }

    @Test("background fetch launches a reader the system terminated; it completes and is suspended")
    func fetchLaunchesTerminated() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.serve("/feed.xml", Self.feed(["1"]))
        try await Self.withSample("FeedReader", prefix: "feedkill") { running in
            try await Self.subscribe(running, to: server.baseURL + "/feed.xml")
            try await Self.openAndSuspend(running, Self.reader, opened: "opened: newData")
            // Killed while suspended, as under memory pressure: not a force quit.
            let victim = try #require(try running.app(Self.reader).pid)
            kill(victim, SIGKILL)
            #expect(try await waitUntil { try running.app(Self.reader).state == .notRunning })

            server.serve("/feed.xml", Self.feed(["2", "1"]))
            let line = try await Self.trigger(
                .wake(WakeRequest(bundle: BundleID(Self.reader), reason: .fetch)), running, Self.reader,
                expecting: "background fetch: ")
            #expect(line == "background fetch: newData (2 items, 1 new)")
            #expect(running.appLog(Self.reader).contains("launched (fetch)"))
            #expect(try running.app(Self.reader).pid != victim)
        }
    }

    @Test("the app-refresh task: it refreshes, resubmits the next one, completes and is suspended")
    func refreshTask() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.serve("/feed.xml", Self.feed(["1"]))
        try await Self.withSample("FeedReader", prefix: "feedtask") { running in
            try await Self.subscribe(running, to: server.baseURL + "/feed.xml")
            try await Self.openAndSuspend(
                running, Self.reader, opened: "scheduled appRefresh \(Self.refreshTask) in 15 min")

            server.serve("/feed.xml", Self.feed(["3", "2", "1"]))
            let task = ClientMessage.Body.simulateTask(
                TaskDebugRequest(bundle: BundleID(Self.reader), identifier: Self.refreshTask))
            let first = try await Self.trigger(task, running, Self.reader, expecting: "refresh task: ")
            #expect(first == "refresh task: newData (3 items, 2 new)")
            // Launching a request takes it off the pending list: a second launch finds one only
            // because the handler submitted the next.
            let second = try await Self.trigger(task, running, Self.reader, expecting: "refresh task: ")
            #expect(second == "refresh task: noData (not modified, 3 items)")
        }
    }

    @Test("the refresh task expired while the server is slow: the fetch is cancelled, the task completes as failed")
    func refreshTaskExpires() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.serve("/feed.xml", Self.feed(["1"]))
        // As for the compaction's expiry below: a budget no loaded machine reaches before the
        // test expires the task itself (with 40 s, a run beside stress-ng ran out first and the
        // expiry was refused).
        try await Self.withSample(
            "FeedReader", prefix: "feedexp", extraArguments: ["--task-budget", "300", "--expiration-warning", "20"]
        ) { running in
            let log = { running.appLog(Self.reader) }
            try await Self.subscribe(running, to: server.baseURL + "/feed.xml")
            try await Self.openAndSuspend(running, Self.reader, opened: "opened: newData (1 items, 1 new)")

            server.serve("/feed.xml", Self.feed(["2", "1"]))
            server.hold("/feed.xml")
            let task = TaskDebugRequest(bundle: BundleID(Self.reader), identifier: Self.refreshTask)
            let simulated = try running.request(.simulateTask(task))
            guard case .done = simulated else { throw HarnessError("task refused: \(simulated)\napp log: \(log())") }
            #expect(await waitUntil { server.waiting == 1 }, "app log: \(log())")
            let expired = try running.request(.expireTask(task))
            guard case .done = expired else { throw HarnessError("expire refused: \(expired)\napp log: \(log())") }
            #expect(await waitUntil { !Self.lines(running, Self.reader, "refresh task: ").isEmpty }, "\(log())")
            let line = Self.lines(running, Self.reader, "refresh task: ").last ?? ""
            #expect(line.hasPrefix("refresh task: failed (") && line.contains("cancelled"), "\(line)")
            #expect(
                try await waitUntil { try running.app(Self.reader).state == .suspended }, "\(running.daemon.log)")
            server.release()

            // The handler submitted the next one before it fetched: it runs, and brings the item.
            let next = try await Self.trigger(
                .simulateTask(task), running, Self.reader, expecting: "refresh task: ")
            #expect(next == "refresh task: newData (2 items, 1 new)")
        }
    }

    // MARK: Compactor

    @Test("the processing task compacts the journal: the file shrinks, and the app is suspended after")
    func compaction() async throws {
        try await Self.withSample("Compactor", prefix: "compact") { running in
            try await Self.openAndSuspend(running, Self.compactor, opened: "scheduled processing \(Self.compactTask)")
            let file = running.dataDirectory(Self.compactor) + "/journal.sqlite"
            let before = try Self.size(file)

            let line = try await Self.trigger(
                .simulateTask(TaskDebugRequest(bundle: BundleID(Self.compactor), identifier: Self.compactTask)),
                running,
                Self.compactor, expecting: "compacted: ")
            let after = try Self.size(file)
            #expect(after < before, "\(before) -> \(after) bytes")
            #expect(line.hasPrefix("compacted: \(before) -> \(after) bytes in "), "\(line)")
        }
    }

    @Test("expired mid-compaction (bgctl simulate expire), it stops after the step under way and resubmits the rest")
    func compactionExpires() async throws {
        // A warning long enough that the app is still in its window when the step it waits in ends,
        // and a budget no loaded machine reaches before the test expires the task itself (with 40 s,
        // CI's once ran out while the app was still starting, and the expiry was refused).
        try await Self.withSample(
            "Compactor", prefix: "cexp", extraArguments: ["--task-budget", "300", "--expiration-warning", "20"]
        ) { running in
            let log = { running.appLog(Self.compactor) }
            try await Self.openAndSuspend(running, Self.compactor, opened: "scheduled processing \(Self.compactTask)")
            let file = running.dataDirectory(Self.compactor) + "/journal.sqlite"
            let before = try Self.size(file)

            // Another connection holds the journal's write lock, as a backup would: the first step
            // waits for it, so the task is surely under way when it is expired.
            let lock = try SQLiteWriteLock(path: file)
            defer { lock.unlock() }
            let task = TaskDebugRequest(bundle: BundleID(Self.compactor), identifier: Self.compactTask)
            let simulated = try running.request(.simulateTask(task))
            guard case .done = simulated else { throw HarnessError("task refused: \(simulated)\napp log: \(log())") }
            #expect(await waitUntil { log().contains("compaction: starting") }, "app log: \(log())")
            let expired = try running.request(.expireTask(task))
            guard case .done = expired else { throw HarnessError("expire refused: \(expired)\napp log: \(log())") }
            #expect(await waitUntil { log().contains("compaction: expiring") }, "app log: \(log())")
            lock.unlock()
            #expect(await waitUntil { log().contains("compaction stopped (expired) after ") }, "app log: \(log())")
            let stopped = Self.lines(running, Self.compactor, "compaction stopped (expired) after ").last ?? ""
            #expect(
                stopped.hasSuffix(" free pages left for next time")
                    && !stopped.hasSuffix(" 0 free pages left for next time"), "\(stopped)")
            #expect(
                try await waitUntil { try running.app(Self.compactor).state == .suspended }, "\(running.daemon.log)")
            #expect(try Self.size(file) <= before)

            // It submitted the rest for next time: the next run finishes.
            let line = try await Self.trigger(
                .simulateTask(task), running, Self.compactor, expecting: "compacted: ")
            #expect(try Self.size(file) < before, "\(line)")
        }
    }

    // MARK: Helpers

    /// An RSS feed whose items are `Item ID`, newest first.
    static func feed(_ ids: [String]) -> String {
        let items = ids.map { "<item><title>Item \($0)</title><guid>\($0)</guid></item>" }
        return "<rss version=\"2.0\"><channel><title>Test</title>\(items.joined())</channel></rss>"
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    }

    static func size(_ path: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? -1
    }
}

/// Holds an SQLite file's write lock (`BEGIN IMMEDIATE`) on a thread of its own until
/// ``unlock()``: readers go on, writers wait.
final class SQLiteWriteLock: Sendable {
    private let queue: DatabaseQueue
    private let locked = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let failure = Locked<String?>(nil)
    private let held = Locked(true)

    /// Takes the lock.
    /// - Throws: What SQLite said when the lock cannot be taken.
    init(path: String) throws {
        queue = try DatabaseQueue(path: path)
        Thread.detachNewThread { [self] in
            do {
                try queue.inDatabase { db in
                    try db.execute(sql: "BEGIN IMMEDIATE")
                    locked.signal()
                    release.wait()
                    try db.execute(sql: "ROLLBACK")
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
                locked.signal()
            }
            done.signal()
        }
        locked.wait()
        if let failure = failure.withLock({ $0 }) { throw HarnessError("cannot lock \(path): \(failure)") }
    }

    /// Releases the lock and waits until it is released; later calls do nothing.
    func unlock() {
        guard
            held.withLock({ held in
                defer { held = false }; return held
            })
        else { return }
        release.signal()
        done.wait()
    }
}
