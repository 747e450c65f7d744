import BackgrounderCore
import Testing

@Suite("Resuming a partial download", .timeLimit(.minutes(5)))
struct TransferResumePlanTests {
    let partial = ResumePlan.Partial(bytes: 1_000, validator: "\"v1\"")

    @Test("a partial with a strong validator asks for the rest, If-Range guarding the version")
    func requestHeaders() {
        #expect(ResumePlan.requestHeaders(for: partial) == ["Range": "bytes=1000-", "If-Range": "\"v1\""])
        let dated = ResumePlan.Partial(bytes: 5, validator: "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(ResumePlan.requestHeaders(for: dated)["If-Range"] == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("nothing on disk, no validator or a weak ETag: no Range at all")
    func noResume() {
        #expect(ResumePlan.requestHeaders(for: nil).isEmpty)
        #expect(ResumePlan.requestHeaders(for: .init(bytes: 0, validator: "\"v1\"")).isEmpty)
        #expect(ResumePlan.requestHeaders(for: .init(bytes: 10, validator: nil)).isEmpty)
        #expect(ResumePlan.requestHeaders(for: .init(bytes: 10, validator: "")).isEmpty)
        #expect(ResumePlan.requestHeaders(for: .init(bytes: 10, validator: "W/\"v1\"")).isEmpty)
    }

    @Test("a 206 starting where the partial ends appends there")
    func appends() {
        let decision = ResumePlan.decide(
            partial: partial, status: 206,
            headers: ["content-range": "bytes 1000-1999/2000", "content-length": "1000", "etag": "\"v1\""])
        #expect(decision == .append(at: 1_000, total: 2_000))
        #expect(
            ResumePlan.decide(partial: partial, status: 206, headers: ["content-range": "bytes 1000-1499/*"])
                == .append(at: 1_000, total: nil))
    }

    @Test("a fresh 200 writes from 0")
    func fresh() {
        #expect(
            ResumePlan.decide(partial: nil, status: 200, headers: ["content-length": "42"]) == .append(at: 0, total: 42)
        )
        #expect(ResumePlan.decide(partial: nil, status: 200, headers: [:]) == .append(at: 0, total: nil))
    }

    @Test("a 200 to a range request restarts, counting what was held as re-fetched")
    func restart() {
        #expect(
            ResumePlan.decide(partial: partial, status: 200, headers: ["etag": "\"v2\""]) == .restart(discarded: 1_000))
        let weak = ResumePlan.Partial(bytes: 300, validator: "W/\"x\"")
        #expect(ResumePlan.decide(partial: weak, status: 200, headers: [:]) == .restart(discarded: 300))
    }

    @Test("a 416 restarts without Range, unless it says we already hold the whole file")
    func unsatisfiable() {
        #expect(
            ResumePlan.decide(partial: partial, status: 416, headers: ["content-range": "bytes */500"])
                == .restartWithoutRange(discarded: 1_000))
        #expect(
            ResumePlan.decide(partial: partial, status: 416, headers: [:]) == .restartWithoutRange(discarded: 1_000))
        #expect(
            ResumePlan.decide(partial: partial, status: 416, headers: ["content-range": "bytes */1000"])
                == .alreadyComplete(total: 1_000))
    }

    @Test("a 206 for another version is never joined to ours")
    func otherVersion() {
        #expect(
            ResumePlan.decide(
                partial: partial, status: 206, headers: ["content-range": "bytes 1000-1999/2000", "etag": "\"v2\""])
                == .restartWithoutRange(discarded: 1_000))
    }

    @Test("a 206 that does not line up fails with the reason")
    func misaligned() {
        func reason(_ partial: ResumePlan.Partial?, _ headers: [String: String]) -> String? {
            guard case .fail(let reason) = ResumePlan.decide(partial: partial, status: 206, headers: headers) else {
                return nil
            }
            return reason
        }
        #expect(
            reason(partial, ["content-range": "bytes 0-1999/2000"])?.contains("starts at byte 0, not at 1000") == true)
        #expect(
            reason(partial, ["content-range": "bytes 1000-1999/2000", "content-length": "5"])?.contains("5") == true)
        #expect(reason(nil, ["content-range": "bytes 0-9/10"])?.contains("without Range") == true)
        for malformed in [
            "", "bytes", "bytes 1000-", "bytes -1999/2000", "bytes 1000-999/2000", "bytes 1000-2000/2000",
            "items 1000-1999/2000", "bytes 1000-1999", "bytes +1000-1999/2000", "bytes */*", "bytes 1000 - 1999/2000",
        ] {
            #expect(reason(partial, ["content-range": malformed])?.contains("malformed") == true, "\(malformed)")
        }
        #expect(reason(partial, [:])?.contains("malformed Content-Range: none") == true)
    }

    @Test("an error status is not about the bytes: the partial is kept")
    func errorStatus() {
        for status in [404, 500, 503, 304] {
            #expect(ResumePlan.decide(partial: partial, status: status, headers: [:]) == .notAResume)
        }
    }

    @Test("a file shorter or longer than announced is never finished")
    func verify() {
        #expect(ResumePlan.verify(bytesOnDisk: 2_000, expectedTotal: 2_000) == .complete)
        #expect(ResumePlan.verify(bytesOnDisk: 1_999, expectedTotal: 2_000) == .short(missing: 1))
        #expect(ResumePlan.verify(bytesOnDisk: 2_001, expectedTotal: 2_000) == .long(extra: 1))
        #expect(ResumePlan.verify(bytesOnDisk: 77, expectedTotal: nil) == .complete)
        #expect(ResumePlan.verify(bytesOnDisk: 77, expectedTotal: -1) == .complete)
        #expect(ResumePlan.verify(bytesOnDisk: 0, expectedTotal: 0) == .complete)
        #expect(ResumePlan.Verification.short(missing: 5).description == "5 bytes short of the announced length")
    }
}
