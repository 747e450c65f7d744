import Foundation
import Testing

@testable import FeedReader

@Suite("FeedReader's fetch timeout")
struct FeedFetcherTests {
    @Test(
        "in the background the fetch may take its window less the margin; in the foreground, 20 s",
        arguments: [
            (TimeInterval.greatestFiniteMagnitude, 20.0),
            (30, 25),
            (300, 295),
            (6, 5),
            (0, 5),
        ])
    func timeout(_ remaining: TimeInterval, _ expected: TimeInterval) {
        #expect(FeedFetcher.timeout(backgroundTimeRemaining: remaining) == expected)
    }
}
