import BackgrounderAppCore
import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem
import BackgrounderTestSupport
import BackgrounderTransfers
import Foundation
import Logging
import Testing

/// The transfer capability's rules against an embedded core, a manual wall clock and a real
/// store and partial-file directory in a temporary directory. No attempt ever starts: the
/// network is down, or every transfer waits for external power; where an attempt's end
/// matters, the test reports it as the HTTP client does (`attemptEnded`).
@Suite("The transfer capability on an embedded core")
@AppCoreActor
final class TransferCapabilityTests {
    /// One client for the suite, never used and never released: a client must be shut down
    /// before it goes, and a test that fails early would not get there.
    static let client = try! HTTPTransferClient(trustedCertificates: [])

    let directory: TemporaryDirectory
    let store: StateStore
    let files: TransferFiles
    let logger: Logger
    let core = EmbeddedAppCore()
    let transfers: TransferCapability
    /// The capability's wall clock, moved by the test.
    let wallClock = Locked(Date(timeIntervalSince1970: 1_800_000_000))

    static let reader: BundleID = "org.example.reader"
    static let other: BundleID = "org.example.other"

    init() throws {
        directory = try TemporaryDirectory(prefix: "transfer-unit")
        store = try StateStore(directory: directory.appending("state"), synchronous: .normal)
        let partials = directory.appending("transfers")
        try FileManager.default.createDirectory(atPath: partials, withIntermediateDirectories: false)
        let data = directory.appending("data")
        files = TransferFiles(
            directory: partials,
            dataDirectory: { app in
                try FileManager.default.createDirectory(
                    atPath: data + "/" + app.rawValue, withIntermediateDirectories: true)
                return data + "/" + app.rawValue
            }, identity: { _ in nil })
        var logger = Logger(label: "transfer-unit")
        logger.logLevel = .critical
        self.logger = logger
        transfers = Self.capability(store: store, files: files, clock: wallClock, logger: logger)
        core.capabilities = [transfers]
        for app in [Self.reader, Self.other] {
            core.add(AppManifest(bundleIdentifier: app, name: app.rawValue, executable: "App"), state: .background)
        }
        // Offline: what is accepted waits.
        transfers.conditionsChanged(externalPower: true, network: false, in: core)
    }

    deinit {
        directory.remove()
    }

    /// A capability on the store, as a daemon starting makes it.
    static func capability(store: StateStore, files: TransferFiles, clock: Locked<Date>, logger: Logger)
        -> TransferCapability
    {
        TransferCapability(
            store: store, files: files, client: client, clock: { clock.withLock { $0 } }, logger: logger)
    }

    static func download(_ path: String, session: String = "feeds") -> TransferSubmission {
        TransferSubmission(session: session, kind: .download, url: "https://example.org/" + path)
    }

    /// What the HTTP client reports when a download's whole body is in its partial file.
    func finish(_ id: Int, body: String) throws {
        transfers.transfers[id]?.info.state = .running
        let bundle = try #require(transfers.transfers[id]?.info.bundle)
        try Data(body.utf8).write(to: URL(fileURLWithPath: files.partialPath(id, of: bundle)))
        let url = try #require(transfers.transfers[id]?.info.request.url)
        transfers.attemptEnded(
            id, of: bundle, .finished(TransferResponse(status: 200, headers: [:], url: url)), in: core)
    }

    @Test("a submission is refused field by field, and nothing of it is kept, not even its number")
    func submissionsRefused() throws {
        let refusals: [(TransferSubmission, String)] = [
            (Self.download("feed.xml", session: ""), "session: must be 1 to 200 characters"),
            (
                TransferSubmission(session: "feeds", kind: .download, url: "/feeds/today.xml"),
                "url: /feeds/today.xml is not an absolute URL"
            ),
            (
                TransferSubmission(session: "feeds", kind: .download, url: "ftp://example.org/feed.xml"),
                "url: only http and https are supported, not ftp"
            ),
            (
                TransferSubmission(
                    session: "feeds", kind: .download, url: "https://example.org/feed.xml",
                    headers: ["X-Feed": "a\r\nHost: elsewhere"]),
                "headers: X-Feed is not a valid header"
            ),
            (
                TransferSubmission(
                    session: "feeds", kind: .download, url: "https://example.org/feed.xml", file: "/etc/passwd"),
                "file: a download has no file to send"
            ),
        ]
        for (submission, reason) in refusals {
            let error = #expect(throws: ProtocolError.self) { try transfers.create(Self.reader, submission, in: core) }
            #expect(error?.code == .badRequest)
            #expect(error?.message == reason)
        }
        #expect(try transfers.list(TransferQuery(), in: core).transfers.isEmpty)
        #expect(try store.loadTransfers().isEmpty)

        let accepted = try transfers.create(Self.reader, Self.download("feed.xml"), in: core)
        #expect(accepted.id == 1)
        #expect(accepted.state == .waiting && accepted.waitingFor == .network)
    }

    @Test(
        "a transfer handed over from the background is discretionary and waits for power; another app can neither see, cancel nor acknowledge it"
    )
    func anotherAppsTransfer() throws {
        core.externalPower = false
        transfers.conditionsChanged(externalPower: false, network: true, in: core)
        var submission = Self.download("feed.xml")
        submission.discretionary = false
        let info = try transfers.create(Self.reader, submission, in: core)
        #expect(info.request.discretionary == true)
        #expect(info.state == .waiting && info.waitingFor == .externalPower)

        let cancel = #expect(throws: ProtocolError.self) { try transfers.cancel(Self.other, info.id, in: core) }
        #expect(cancel?.code == .notFound)
        #expect(cancel?.message == "no transfer \(info.id) of \(Self.other)")
        let acknowledge = #expect(throws: ProtocolError.self) {
            try transfers.acknowledge(Self.other, info.id, in: core)
        }
        #expect(acknowledge?.code == .notFound)
        #expect(try transfers.attach(Self.other, session: "feeds", in: core).transfers.isEmpty)

        let early = #expect(throws: ProtocolError.self) { try transfers.acknowledge(Self.reader, info.id, in: core) }
        #expect(early?.message == "transfer \(info.id) is still waiting")
        #expect(try transfers.attach(Self.reader, session: "feeds", in: core).transfers.map(\.state) == [.waiting])
        #expect(core.notices(to: Self.other).isEmpty)
    }

    @Test(
        "the store carries transfers over a restart: one that was running waits again from its partial file, and no number is reused"
    )
    func restartResumes() throws {
        let first = try transfers.create(Self.reader, Self.download("episode-1.mp3"), in: core)
        let second = try transfers.create(Self.reader, Self.download("episode-2.mp3"), in: core)
        // The first was running when the daemon stopped, with 1234 bytes on disk.
        var running = first
        running.state = .running
        try store.saveTransfer(StateStore.StoredTransfer(info: running, validator: "\"v1\""))
        try Data(repeating: 7, count: 1234).write(
            to: URL(fileURLWithPath: files.partialPath(first.id, of: Self.reader)))
        // The app cancelled the second and heard so: it is forgotten.
        _ = try transfers.cancel(Self.reader, second.id, in: core)
        _ = try transfers.acknowledge(Self.reader, second.id, in: core)

        let reopened = try StateStore(directory: directory.appending("state"), synchronous: .normal)
        let again = Self.capability(store: reopened, files: files, clock: wallClock, logger: logger)
        again.conditionsChanged(externalPower: true, network: false, in: core)
        #expect(again.transfers.keys.sorted() == [first.id])
        let resumed = try #require(again.transfers[first.id])
        #expect(resumed.info.state == .waiting)
        #expect(resumed.info.bytesReceived == 1234)
        #expect(resumed.validator == "\"v1\"")
        #expect(try again.create(Self.reader, Self.download("episode-3.mp3"), in: core).id == second.id + 1)
    }

    @Test(
        "once every download of a session is in, each is moved into the app's data directory and the suspended app is woken for the session once"
    )
    func finishedSessionWakesTheApp() throws {
        let one = try transfers.create(Self.reader, Self.download("1.mp3", session: "episodes"), in: core)
        let two = try transfers.create(Self.reader, Self.download("2.mp3", session: "episodes"), in: core)
        _ = try transfers.attach(Self.reader, session: "episodes", in: core)
        core.move(Self.reader, to: .suspended)

        try finish(one.id, body: "first episode")
        #expect(core.asks.isEmpty)
        try finish(two.id, body: "second episode")
        #expect(core.asks == [.deliverEvent(Self.reader, .download), .openWindow(Self.reader, .urlSession)])
        // Frozen, it heard nothing; it lists them when it attaches.
        #expect(core.notices(to: Self.reader).isEmpty)

        core.move(Self.reader, to: .background)
        let list = try transfers.attach(Self.reader, session: "episodes", in: core).transfers
        #expect(list.map(\.state) == [.completed, .completed])
        let location = try #require(list.first?.location)
        #expect(location == directory.appending("data/\(Self.reader)/tmp/CFNetworkDownload_\(one.id).tmp"))
        #expect(try String(contentsOfFile: location, encoding: .utf8) == "first episode")
        #expect(files.partialLength(one.id, of: Self.reader) == 0)

        _ = try transfers.acknowledge(Self.reader, one.id, in: core)
        #expect(!FileManager.default.fileExists(atPath: location))
        #expect(try store.loadTransfers().map(\.info.id) == [two.id])
        #expect(core.asks.count == 2)
    }

    @Test(
        "a transfer still waiting past the policy's resource timeout fails, and its app is launched for the session; a force-quit app's are cancelled and it is not"
    )
    func timeoutAndForceQuit() throws {
        let feed = try transfers.create(Self.reader, Self.download("feed.xml"), in: core)
        let stranded = try transfers.create(Self.other, Self.download("news.xml"), in: core)
        core.exit(Self.reader)
        core.apps[Self.other]?.forceQuit = true
        core.exit(Self.other)
        transfers.app(Self.other, changed: .forceQuit, in: core)
        let cancelled = try #require(transfers.transfers[stranded.id]?.info)
        #expect(cancelled.state == .cancelled)
        #expect(cancelled.error == TransferError(.cancelled, "the app was force-quit"))

        let timeout = SchedulingPolicy().transferResourceTimeout.seconds
        wallClock.withLock { $0 += timeout - 1 }
        transfers.reschedule(in: core)
        #expect(transfers.transfers[feed.id]?.info.state == .waiting)
        wallClock.withLock { $0 += 2 }
        transfers.reschedule(in: core)
        let failed = try #require(transfers.transfers[feed.id]?.info)
        #expect(failed.state == .failed)
        #expect(failed.error?.code == .timedOut)
        #expect(core.asks == [.deliverEvent(Self.reader, .download), .openWindow(Self.reader, .urlSession)])
    }
}

extension TransferCapabilityTests {
    @Test("bgctl status counts transfers waiting, running, and finished but not yet heard by their app")
    func status() throws {
        #expect(transfers.status(in: core).counts == ["running": 0, "waiting": 0, "finished": 0])
        let first = try transfers.create(Self.reader, Self.download("one.xml"), in: core)
        _ = try transfers.create(Self.other, Self.download("two.xml"), in: core)
        try finish(first.id, body: "<feed/>")

        let status = transfers.status(in: core)
        #expect(status.name == "transfers")
        #expect(status.counts == ["running": 0, "waiting": 1, "finished": 1], "\(status.summary)")
        #expect(status.summary == "0 running, 1 waiting, 1 finished and not yet heard by their app")
    }
}
