// Fuzz target `http-headers`: the response headers a download's server sends, as the daemon's
// transfer client judges them: `Content-Range` (`ContentRange`), `Retry-After` (`RetryAfter`
// with `HTTPDate`'s three date forms), and what they mean for a partial download
// (`ResumePlan.decide`, `ResumePlan.verify`) and for a retry (`TransferFailure.outcome`).
// The daemon only writes `Range` (`ResumePlan.requestHeaders`); its form is checked here too.
//
// The input is a response in text:
//
//     206 1000 "v1"                      status, bytes already on disk (- for none), validator
//     content-range: bytes 1000-1999/2000
//     content-length: 1000
//
// Header names are lower-cased and repeated headers joined with ", ", as the daemon does with
// what AsyncHTTPClient hands it. Every header value also goes through each parser alone.

import BackgrounderCore
import Foundation

/// A fixed "now", so a run is reproducible: 2025-06-14 07:33:00 UTC.
let now = Date(timeIntervalSince1970: 1_749_886_380)
let backoff = TransferBackoff(base: .seconds(1), cap: .seconds(3600), jitter: .full)

/// A deterministic generator for the backoff's jitter (SplitMix64).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPHeaders(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
        $0.hasSuffix("\r") ? $0.dropLast() : $0
    }
    let first = lines.isEmpty ? [] : lines.removeFirst().split(separator: " ", maxSplits: 2)
    let status = first.count > 0 ? Int(first[0]) ?? 200 : 200
    let held = first.count > 1 ? Int64(first[1]) : nil
    let validator = first.count > 2 ? String(first[2]) : nil
    var headers: [String: String] = [:]
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = headers[name].map { $0 + ", " + value } ?? value
        parseAlone(value)
    }

    let partial = held.map { ResumePlan.Partial(bytes: $0, validator: validator) }
    checkRequest(partial)
    let decision = ResumePlan.decide(partial: partial, status: status, headers: headers)
    check(decision, partial: partial, status: status)

    let failure = TransferFailure.response(status: status, headers: headers)
    for retry in [1, 7, 70] {
        var generator = SplitMix(state: UInt64(truncatingIfNeeded: count))
        switch failure.outcome(
            url: "https://example.org/f", retry: retry, backoff: backoff, now: now, using: &generator)
        {
        case .retry(let delay, _):
            precondition(delay >= .zero && delay <= backoff.cap, "a retry after \(delay), outside 0...cap")
        case .complete, .fail:
            break
        }
    }
    return 0
}

/// Each parser on one header value, with what its answer promises.
func parseAlone(_ value: String) {
    if let range = ContentRange(value) {
        switch (range.first, range.last) {
        case (let first?, let last?):
            precondition(first >= 0 && first <= last, "Content-Range \(value) gave \(first)-\(last)")
            if let total = range.total { precondition(last < total, "Content-Range \(value) ends past its total") }
        case (nil, nil):
            precondition(range.total != nil, "Content-Range \(value): */* accepted")
        default:
            preconditionFailure("Content-Range \(value) has one end only")
        }
    }
    if let delay = RetryAfter.delay(value, now: now) {
        precondition(delay >= .zero, "Retry-After \(value) gave a negative delay \(delay)")
    }
    if let date = HTTPDate.parse(value, now: now) {
        precondition(date.timeIntervalSince1970.isFinite, "HTTP-date \(value) gave \(date)")
    }
}

/// The request's `Range`, when there is a partial to resume.
func checkRequest(_ partial: ResumePlan.Partial?) {
    let headers = ResumePlan.requestHeaders(for: partial)
    guard let partial, partial.isResumable else {
        precondition(headers.isEmpty, "Range asked for a partial that cannot resume: \(headers)")
        return
    }
    precondition(headers["Range"] == "bytes=\(partial.bytes)-", "Range is \(headers["Range"] ?? "missing")")
    precondition(headers["If-Range"] == partial.validator, "If-Range is \(headers["If-Range"] ?? "missing")")
}

/// What the download does with a decision must stay inside the file it has.
func check(_ decision: ResumePlan.Decision, partial: ResumePlan.Partial?, status: Int) {
    let held = partial?.bytes ?? 0
    switch decision {
    case .append(let offset, let total):
        precondition(offset == 0 || (offset == held && partial?.isResumable == true), "append at \(offset)")
        if status == 206, let total { precondition(offset < total, "206 appends at \(offset) of \(total)") }
        let expected = total ?? -1
        _ = ResumePlan.verify(bytesOnDisk: offset, expectedTotal: expected >= 0 ? expected : nil)
    case .restart(let discarded), .restartWithoutRange(let discarded):
        precondition(discarded == held, "discards \(discarded) of \(held)")
    case .alreadyComplete(let total):
        precondition(status == 416 && total == held, "already complete at \(total) of \(held)")
    case .notAResume:
        precondition(!(200..<300).contains(status) && status != 416, "status \(status) is not a resume")
    case .fail(let reason):
        precondition(!reason.isEmpty)
    }
}
