import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import Testing

@Suite("Classifying a transfer's failures", .timeLimit(.minutes(5)))
struct TransferFailureTests {
    let url = "https://example.org/big.iso"
    let now = Date(timeIntervalSince1970: 784_111_777)
    let backoff = TransferBackoff(policy: SchedulingPolicy(), jitter: .none)

    func outcome(_ failure: TransferFailure, retry: Int = 1) -> TransferOutcome {
        var generator = SeededGenerator(seed: 1)
        return failure.outcome(url: url, retry: retry, backoff: backoff, now: now, using: &generator)
    }

    @Test("transient network failures retry after the backoff, with a reason for lastError")
    func transient() {
        #expect(outcome(.connectionRefused) == .retry(after: .seconds(2), reason: "connection refused"))
        #expect(outcome(.connectionReset, retry: 3) == .retry(after: .seconds(8), reason: "connection reset"))
        #expect(outcome(.closedEarly) == .retry(after: .seconds(2), reason: "connection closed early"))
        #expect(outcome(.timedOut) == .retry(after: .seconds(2), reason: "timed out"))
        #expect(
            outcome(.bodyShort(received: 10, expected: 20))
                == .retry(after: .seconds(2), reason: "body ended after 10 of 20 bytes"))
        #expect(
            outcome(.dnsFailure(temporary: true))
                == .retry(after: .seconds(2), reason: "the name server did not answer"))
    }

    @Test("500, 502 and 504 retry; a Retry-After among them wins over the backoff")
    func serverErrors() {
        for status in [500, 502, 504] {
            #expect(
                outcome(.response(status: status, headers: [:])) == .retry(after: .seconds(2), reason: "HTTP \(status)")
            )
        }
        #expect(
            outcome(.response(status: 502, headers: ["retry-after": "30"]))
                == .retry(after: .seconds(30), reason: "HTTP 502"))
    }

    @Test("429 and 503 retry when the server says when, capped; without it the app gets the status")
    func comeBackLater() {
        #expect(
            outcome(.response(status: 503, headers: ["retry-after": "45"]))
                == .retry(after: .seconds(45), reason: "HTTP 503 with Retry-After"))
        #expect(
            outcome(.response(status: 429, headers: ["retry-after": "Sun, 06 Nov 1994 08:50:37 GMT"]))
                == .retry(after: .seconds(60), reason: "HTTP 429 with Retry-After"))
        #expect(
            outcome(.response(status: 429, headers: ["retry-after": "86400"]))
                == .retry(after: .seconds(600), reason: "HTTP 429 with Retry-After"))
        #expect(outcome(.response(status: 503, headers: [:])) == .complete)
        #expect(outcome(.response(status: 503, headers: ["retry-after": "whenever"])) == .complete)
    }

    @Test(
        "any other response completes, as on iOS",
        arguments: [200, 201, 204, 206, 301, 304, 400, 401, 403, 404, 410, 501])
    func completes(status: Int) {
        #expect(outcome(.response(status: status, headers: ["retry-after": "5"])) == .complete)
    }

    @Test("permanent failures fail with a code and a message naming the URL")
    func permanent() throws {
        let cases: [(TransferFailure, TransferError.Code, String)] = [
            (.tlsFailure("certificate expired"), .secureConnectionFailed, "TLS failed: certificate expired"),
            (.dnsFailure(temporary: false), .cannotFindHost, "does not resolve"),
            (.tooManyRedirects(16), .httpTooManyRedirects, "more than 16 redirects"),
            (.unsupportedScheme("ftp"), .unsupportedURL, "\"ftp\" is not http or https"),
            (.badResponse("206 starts at byte 5"), .badServerResponse, "206 starts at byte 5"),
            (.file(.create, path: "/d/x.part", errno: EACCES), .cannotCreateFile, "cannot create /d/x.part"),
            (.file(.write, path: "/d/x.part", errno: ENOSPC), .cannotWriteToFile, "cannot write /d/x.part"),
            (.file(.open, path: "/d/up.bin", errno: ENOENT), .cannotOpenFile, "cannot open /d/up.bin"),
            (.file(.read, path: "/d/up.bin", errno: EACCES), .noPermissionsToReadFile, "cannot read /d/up.bin"),
            (.exceedsDiskLimit(limit: 4 << 20), .dataLengthExceedsMaximum, "larger than the 4 MiB the policy leaves"),
        ]
        for (failure, code, fragment) in cases {
            guard case .fail(let error) = outcome(failure) else {
                Issue.record("\(failure) did not fail")
                continue
            }
            #expect(error.code == code)
            #expect(error.message.hasPrefix(url + ": "), "\(error.message)")
            #expect(error.message.contains(fragment), "\(error.message)")
        }
        guard case .fail(let full) = outcome(.file(.write, path: "/d/x.part", errno: ENOSPC)) else { return }
        #expect(full.message.contains(String(cString: strerror(ENOSPC))))
    }
}
