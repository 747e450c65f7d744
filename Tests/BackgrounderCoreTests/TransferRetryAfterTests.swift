import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import Testing

@Suite("Retry-After and HTTP dates", .timeLimit(.minutes(5)))
struct TransferRetryAfterTests {
    /// 1994-11-06 08:49:37 UTC, RFC 9110's example moment.
    let example = Date(timeIntervalSince1970: 784_111_777)

    @Test("delta-seconds, surrounding spaces allowed")
    func deltaSeconds() {
        #expect(RetryAfter.delay("120", now: example) == .seconds(120))
        #expect(RetryAfter.delay(" 0 ", now: example) == .zero)
        #expect(RetryAfter.delay("99999999999999999999999", now: example)! > .seconds(86_400 * 365))
    }

    @Test("all three HTTP-date forms name the same moment")
    func threeForms() {
        for text in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(HTTPDate.parse(text, now: example) == example, "\(text)")
        }
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:51:37 GMT", now: example) == .seconds(120))
    }

    @Test("a date in the past means now")
    func pastDate() {
        #expect(RetryAfter.delay("Sat, 05 Nov 1994 08:49:37 GMT", now: example) == .zero)
    }

    @Test("an RFC 850 year more than 50 years ahead is in the past century")
    func twoDigitYears() {
        let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026
        #expect(HTTPDate.parse("Friday, 01-Jan-99 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 915_148_800))
        #expect(
            HTTPDate.parse("Friday, 01-Jan-27 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 1_798_761_600))
    }

    @Test(
        "garbage is ignored, not guessed at",
        arguments: [
            "", "soon", "-5", "+5", "1.5", "12 s", "0x10", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov  6 08:49:37", "Xyz, 06 Nov 1994 08:49:37 GMT",
        ])
    func garbage(text: String) {
        #expect(RetryAfter.delay(text, now: example) == nil)
    }

    @Test("random moments from 1970 to 2100, written by DateFormatter in IMF-fixdate and asctime, read back exactly")
    func roundTrip() {
        func formatter(_ format: String) -> DateFormatter {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            return formatter
        }
        let imf = formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'")
        let asctime = formatter("EEE MMM d HH:mm:ss yyyy")
        var generator = SeededGenerator(seed: 2026)
        for _ in 0..<500 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: 0..<4_102_444_800, using: &generator)))
            #expect(HTTPDate.parse(imf.string(from: date)) == date, "\(imf.string(from: date))")
            // asctime pads a one-digit day with a space.
            let text = asctime.string(from: date).replacingOccurrences(
                of: #" (\d) "#, with: "  $1 ", options: .regularExpression)
            #expect(HTTPDate.parse(text) == date, "\(text)")
        }
    }
}
