import BackgrounderCore
import BackgrounderProtocol
import Foundation
import Testing

@testable import BackgroundKit

/// BackgroundKit's background sessions against a fake daemon: what they send, and what their
/// delegates hear, in which order. One registry per process, so the tests run one by one.
/// Errors are Foundation's `URLError`: -999 cancelled, -1001 timed out, -1 unknown.
@Suite("Background URLSession", .serialized, .timeLimit(.minutes(5)))
@MainActor
struct BackgroundURLSessionTests {
    let daemon = FakeTransferDaemon()
    let delegate = RecordingDelegate()

    init() {
        URLSessionRegistry.shared.reset()
    }

    /// Waits until no delivery is scheduled: one may schedule the next.
    private func settle(_ session: URLSession) async {
        var last: Task<Void, Never>?
        while let delivery = session.delivery, delivery != last {
            await delivery.value
            last = delivery
        }
    }

    private func session(_ identifier: String = "s") -> URLSession {
        URLSession(
            configuration: .background(withIdentifier: identifier), delegate: delegate, channel: daemon)
    }

    @Test(
        "a finished download: its last progress, the file, then the completion (nil error for a 404), then the acknowledgement"
    )
    func finishedDownload() async {
        daemon.setList([FakeTransferDaemon.info(7, state: .completed, received: 5, status: 404, location: "/d/7")])
        let session = session()
        #expect(daemon.acknowledged.isEmpty)
        await settle(session)
        // The last bytes first, as progress: no report came before this list.
        #expect(delegate.events == ["wrote 7 5 5/-1", "file 7 /d/7", "complete 7 status 404 error -"])
        #expect(daemon.acknowledged == [7])
        guard case .transferSession(let request)? = daemon.requests.first else {
            Issue.record("the session did not attach first: \(daemon.requests)")
            return
        }
        #expect(request.session == "s")
    }

    @Test("a finished transfer is delivered once, however often the daemon reports it")
    func deliveredOnce() async {
        let done = FakeTransferDaemon.info(8, state: .failed, error: TransferError(.timedOut, "slow"))
        daemon.setList([done])
        let session = session()
        await settle(session)
        URLSessionRegistry.shared.receive(done)
        session.attach()
        await settle(session)
        #expect(delegate.events == ["complete 8 status - error -1001"])
        #expect(daemon.acknowledged == [8])
    }

    @Test("resume sends TRANSFER_CREATE once, with the request's method, headers and the task's hints")
    func resumeCreates() throws {
        let session = session()
        var request = URLRequest(url: try #require(URL(string: "https://example.org/big.bin")))
        request.httpMethod = "GET"
        request.setValue("bytes=0-", forHTTPHeaderField: "Range")
        let task = session.downloadTask(with: request)
        task.earliestBeginDate = Date(timeIntervalSince1970: 2_000_000_000)
        task.countOfBytesClientExpectsToReceive = 1 << 20
        task.taskDescription = "big"
        #expect(task.taskIdentifier == 0)
        #expect(task.state == .suspended)
        task.resume()
        task.resume()
        #expect(task.taskIdentifier == 41)
        #expect(task.state == .running)
        #expect(
            daemon.created == [
                TransferSubmission(
                    session: "s", kind: .download, url: "https://example.org/big.bin", method: "GET",
                    headers: ["Range": "bytes=0-"], earliestBeginDate: 2_000_000_000, expectedBytesToReceive: 1 << 20,
                    taskDescription: "big")
            ])
    }

    @Test("an upload names its file; a discretionary configuration says so")
    func upload() throws {
        let configuration = URLSessionConfiguration.background(withIdentifier: "u")
        configuration.isDiscretionary = true
        let session = URLSession(configuration: configuration, delegate: delegate, channel: daemon)
        let task = session.uploadTask(
            with: URLRequest(url: try #require(URL(string: "http://example.org/in"))),
            fromFile: URL(fileURLWithPath: "/data/up.bin"))
        task.resume()
        let submission = try #require(daemon.created.first)
        #expect(submission.kind == .upload)
        #expect(submission.file == "/data/up.bin")
        #expect(submission.discretionary == true)
    }

    @Test("progress: didWriteData with the bytes since the last report, never backwards")
    func progress() async throws {
        let session = session()
        let task = session.downloadTask(with: try #require(URL(string: "http://example.org/a")))
        task.resume()
        let id = task.taskIdentifier
        for received: Int64 in [100, 300, 100] {
            URLSessionRegistry.shared.receive(
                FakeTransferDaemon.info(id, state: .running, received: received, expected: 1000))
        }
        #expect(delegate.events == ["wrote 41 100 100/1000", "wrote 41 200 300/1000"])
        #expect(task.countOfBytesReceived == 300)
        #expect(task.countOfBytesExpectedToReceive == 1000)
    }

    @Test("a background event ends with urlSessionDidFinishEvents, after the last finished transfer")
    func finishEvents() async {
        daemon.setList([
            FakeTransferDaemon.info(1, state: .completed, status: 200, location: "/d/1"),
            FakeTransferDaemon.info(2, state: .cancelled, error: TransferError(.cancelled, "by the app")),
        ])
        URLSessionRegistry.shared.noteEvent(for: "s")
        let session = session()
        await settle(session)
        #expect(
            delegate.events == [
                "file 1 /d/1", "complete 1 status 200 error -", "complete 2 status - error -999",
                "finished events s",
            ])
        #expect(daemon.acknowledged == [1, 2])
    }

    @Test(
        "an event for a session this process has asks for its transfers again and ends with urlSessionDidFinishEvents")
    func eventForExistingSession() async {
        let session = session()
        await settle(session)
        #expect(delegate.events.isEmpty)
        // Suspended meanwhile, the transfer finished; the daemon wakes the app with the event.
        daemon.setList([FakeTransferDaemon.info(4, state: .completed, status: 200, location: "/d/4")])
        Application.shared.handleEvents(forBackgroundURLSession: "s", window: 12)
        await settle(session)
        #expect(delegate.events == ["file 4 /d/4", "complete 4 status 200 error -", "finished events s"])
        let attaches = daemon.requests.filter { if case .transferSession = $0 { true } else { false } }
        #expect(attaches.count == 2)
    }

    @Test("without a background event, no urlSessionDidFinishEvents")
    func noFinishEventsWithoutEvent() async {
        daemon.setList([FakeTransferDaemon.info(3, state: .completed, status: 200, location: "/d/3")])
        let session = session()
        await settle(session)
        #expect(!delegate.events.contains { $0.hasPrefix("finished events") })
    }

    @Test("a relaunched app's session adopts the running transfers, which getAllTasks lists")
    func adopts() async {
        daemon.setList([FakeTransferDaemon.info(9, state: .running, received: 10, expected: 20)])
        let session = session()
        await settle(session)
        let tasks = await withCheckedContinuation { continuation in
            session.getAllTasks { continuation.resume(returning: $0.map { "\($0.taskIdentifier) \($0.state)" }) }
        }
        #expect(tasks == ["9 running"])
    }

    @Test("cancel before resume completes with cancelled and asks the daemon nothing")
    func cancelUnresumed() async throws {
        let session = session()
        let task = session.downloadTask(with: try #require(URL(string: "http://example.org/a")))
        task.cancel()
        await settle(session)
        #expect(delegate.events == ["complete 0 status - error -999"])
        #expect(daemon.created.isEmpty)
        #expect(task.state == .completed)
    }

    @Test("cancel after resume sends TRANSFER_CANCEL; the daemon's final update completes it")
    func cancelResumed() async throws {
        let session = session()
        let task = session.downloadTask(with: try #require(URL(string: "http://example.org/a")))
        task.resume()
        task.cancel()
        #expect(task.state == .canceling)
        #expect(daemon.requests.contains(.cancelTransfer(TransferReference(transfer: 41))))
        URLSessionRegistry.shared.receive(
            FakeTransferDaemon.info(41, state: .cancelled, error: TransferError(.cancelled, "cancelled")))
        #expect(delegate.events == ["complete 41 status - error -999"])
        #expect(task.state == .completed)
    }

    @Test("a refused create completes the task with the daemon's reason")
    func refusedCreate() async throws {
        daemon.refuseCreates(ProtocolError(.badRequest, "url: ftp is not http or https"))
        let session = session()
        let task = session.downloadTask(with: try #require(URL(string: "ftp://example.org/a")))
        task.resume()
        await settle(session)
        #expect(delegate.events == ["complete 0 status - error -1"])
        let description = (task.error as? URLError)?.userInfo[NSLocalizedDescriptionKey] as? String
        #expect(description?.contains("url: ftp is not http or https") == true)
    }

    @Test("invalidateAndCancel cancels the tasks, then the delegate hears the session is invalid")
    func invalidate() async throws {
        let session = session()
        _ = session.downloadTask(with: try #require(URL(string: "http://example.org/a")))
        session.invalidateAndCancel()
        await settle(session)
        #expect(delegate.events == ["complete 0 status - error -999", "invalid"])
        #expect(URLSessionRegistry.shared.session("s") == nil)
    }
}
