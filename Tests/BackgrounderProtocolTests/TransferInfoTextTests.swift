import BackgrounderCore
import BackgrounderProtocol
import Foundation
import Testing

@Suite("bgctl transfers' rows and detail", .timeLimit(.minutes(5)))
struct TransferInfoTextTests {
    let now = Date(timeIntervalSince1970: 1_000_000)

    func download(_ state: TransferState, url: String = "https://example.org/a.iso") -> TransferInfo {
        TransferInfo(
            id: 7, bundle: "org.example.feed", request: TransferSubmission(session: "bg", kind: .download, url: url),
            state: state, created: 999_000)
    }

    @Test("a running download shows its bar, bytes, rate and time left")
    func running() {
        var info = download(.running)
        info.bytesReceived = 104_857_600
        info.bytesExpectedToReceive = 209_715_200
        info.rate = 4.1 * 1_048_576
        #expect(
            info.tableRow(now: now) == [
                "7", "org.example.feed", "download", "running", "[#####-----] 50%", "100 MiB / 200 MiB", "4.1 MiB/s",
                "0:25",
            ])
    }

    @Test("a waiting retry says when and why; an unknown size shows no bar")
    func waitingRetry() {
        var info = download(.waiting)
        info.waitingFor = .retry
        info.retryAt = 1_000_008
        info.lastError = "connection reset"
        info.bytesReceived = 12_897_485
        #expect(
            info.tableRow(now: now) == [
                "7", "org.example.feed", "download", "waiting (retry in 8s: connection reset)", "-", "12.3 MiB", "-",
                "-",
            ])
    }

    @Test("an upload counts bytes sent")
    func upload() {
        var info = download(.running)
        info.request = TransferSubmission(session: "bg", kind: .upload, url: "https://example.org/up", file: "f")
        info.bytesSent = 1024
        info.bytesExpectedToSend = 4096
        #expect(info.tableRow(now: now)[4...5] == ["[##--------] 25%", "1 KiB / 4 KiB"])
    }

    @Test("the detail names every field; a hostile URL is escaped by bgctl's table, not here")
    func detail() {
        var info = download(.completed, url: "https://example.org/\u{1B}]0;pwned\u{07}")
        info.bytesReceived = 10
        info.bytesExpectedToReceive = 10
        info.bytesRefetched = 2048
        info.retries = 3
        info.lastError = "timed out"
        info.response = TransferResponse(
            status: 404, headers: ["content-type": "text/html"], url: "https://example.org/b")
        info.location = "/data/org.example.feed/tmp/7.download"
        let rows = Dictionary(uniqueKeysWithValues: info.detailRows(now: now).map { ($0[0], $0[1]) })
        #expect(rows["state"] == "completed (HTTP 404)")
        #expect(rows["url"] == "https://example.org/\u{1B}]0;pwned\u{07}")
        #expect(rows["retries"] == "3")
        #expect(rows["bytes re-fetched"] == "2048 (2 KiB)")
        #expect(rows["last error"] == "timed out")
        #expect(rows["response"] == "HTTP 404 from https://example.org/b")
        #expect(rows["  content-type"] == "text/html")
        #expect(rows["location"] == "/data/org.example.feed/tmp/7.download")
        #expect(rows["progress"] == "[##########] 100%, 10 of 10 bytes")
        #expect(rows["created"] == "1970-01-12 13:30:00 UTC")
        #expect(rows["method"] == "GET")
        #expect(TransferInfo.allFinished([info]) && !TransferInfo.allFinished([info, download(.running)]))
    }
}
