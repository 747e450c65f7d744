import BackgrounderCore
import Testing

@Suite("Transfer text: bytes, rates, bars and states", .timeLimit(.minutes(5)))
struct TransferTextTests {
    @Test("byte counts in binary units, three figures at most")
    func bytes() {
        let cases: [(Int64, String)] = [
            (0, "0 B"), (1, "1 B"), (1023, "1023 B"), (1024, "1 KiB"), (1536, "1.5 KiB"),
            (12_897_485, "12.3 MiB"), (200 << 20, "200 MiB"), (102_297, "99.9 KiB"),
            (1_048_570, "1 MiB"), (8 << 30, "8 GiB"), (.max, "8 EiB"), (-2048, "-2 KiB"),
        ]
        for (bytes, text) in cases { #expect(ByteCountText.string(bytes) == text, "\(bytes)") }
    }

    @Test("rates: per second, a dash when not moving")
    func rates() {
        #expect(ByteCountText.rate(4.1 * 1_048_576) == "4.1 MiB/s")
        #expect(ByteCountText.rate(512) == "512 B/s")
        for rate in [nil, 0, -3, .nan, .infinity] as [Double?] { #expect(ByteCountText.rate(rate) == "-") }
    }

    @Test("the bar and percentage round down: 100% means every byte")
    func bars() {
        #expect(TransferText.progressBar(done: 52, total: 100) == "[#####-----] 52%")
        #expect(TransferText.progressBar(done: 0, total: 100) == "[----------] 0%")
        #expect(TransferText.progressBar(done: 999, total: 1000) == "[#########-] 99%")
        #expect(TransferText.progressBar(done: 1000, total: 1000) == "[##########] 100%")
        #expect(TransferText.progressBar(done: 5000, total: 1000) == "[##########] 100%")
        #expect(TransferText.progressBar(done: .max - 1, total: .max) == "[#########-] 99%")
        #expect(TransferText.progressBar(done: 5, total: 0) == nil)
        #expect(TransferText.progressBar(done: 5, total: -1) == nil)
        #expect(TransferText.progressBar(done: 1, total: 4, width: 4) == "[#---] 25%")
    }

    @Test("time left as a clock, unknown without a rate")
    func eta() {
        #expect(TransferText.eta(remaining: 47 * 1000, bytesPerSecond: 1000) == "0:47")
        #expect(TransferText.eta(remaining: 3723, bytesPerSecond: 1) == "1:02:03")
        #expect(TransferText.eta(remaining: 1, bytesPerSecond: 1000) == "0:01")
        #expect(TransferText.eta(remaining: 0, bytesPerSecond: 1000) == "0:00")
        #expect(TransferText.eta(remaining: 1 << 50, bytesPerSecond: 1) == ">99h")
        #expect(TransferText.eta(remaining: 100, bytesPerSecond: nil) == "-")
        #expect(TransferText.eta(remaining: 100, bytesPerSecond: 0) == "-")
    }

    @Test("short durations round up")
    func durations() {
        #expect(TransferText.shortDuration(seconds: 7.2) == "8s")
        #expect(TransferText.shortDuration(seconds: 303) == "5m 3s")
        #expect(TransferText.shortDuration(seconds: 300) == "5m")
        #expect(TransferText.shortDuration(seconds: 7500) == "2h 5m")
        #expect(TransferText.shortDuration(seconds: 3 * 86400 + 4 * 3600) == "3d 4h")
        #expect(TransferText.shortDuration(seconds: -4) == "0s")
    }

    @Test("a state says why it waits")
    func states() {
        #expect(
            TransferText.state(.waiting, waitingFor: .retry, retryIn: 7.5, lastError: "connection reset")
                == "waiting (retry in 8s: connection reset)")
        #expect(TransferText.state(.waiting, waitingFor: .retry) == "waiting (retry)")
        #expect(TransferText.state(.waiting, waitingFor: .network) == "waiting (network)")
        #expect(TransferText.state(.waiting, waitingFor: .externalPower) == "waiting (external power)")
        #expect(TransferText.state(.waiting, waitingFor: .concurrency) == "waiting (app's other transfers)")
        #expect(
            TransferText.state(.waiting, waitingFor: .earliestBeginDate, beginsIn: 3600) == "waiting (begins in 1h)")
        #expect(TransferText.state(.waiting, waitingFor: nil) == "waiting")
        #expect(TransferText.state(.running, waitingFor: nil) == "running")
        #expect(TransferText.state(.completed, waitingFor: nil, status: 404) == "completed (HTTP 404)")
        #expect(TransferText.state(.failed, waitingFor: nil) == "failed")
        #expect(TransferText.state(.cancelled, waitingFor: nil) == "cancelled")
    }
}
