import BackgrounderCore
import Testing

@Suite("Life cycle: crash-loop throttling", .timeLimit(.minutes(5)))
struct CrashLoopTests {
    private let window = Duration.seconds(10)

    @Test("four crashes in the window allow a launch; the fifth refuses it until the oldest leaves")
    func fifthCrashThrottles() {
        var loop = CrashLoop()
        for second in 0..<4 { loop.crashed(at: .seconds(second)) }
        #expect(loop.throttledUntil(launchingAt: .seconds(4), limit: 5, window: window) == nil)
        loop.crashed(at: .seconds(4))
        #expect(loop.throttledUntil(launchingAt: .seconds(5), limit: 5, window: window) == .seconds(10))
        // At the window's edge the oldest still counts; a moment after it, it does not.
        #expect(loop.throttledUntil(launchingAt: .seconds(10), limit: 5, window: window) == .seconds(10))
        #expect(loop.throttledUntil(launchingAt: .milliseconds(10_001), limit: 5, window: window) == nil)
        #expect(loop.crashes == [.seconds(1), .seconds(2), .seconds(3), .seconds(4)])
    }

    @Test("crashes spread wider than the window never make a loop")
    func spreadCrashes() {
        var loop = CrashLoop()
        for crash in 0..<50 {
            let time = Duration.seconds(crash * 3)
            #expect(loop.throttledUntil(launchingAt: time, limit: 5, window: window) == nil, "launch \(crash)")
            loop.crashed(at: time)
        }
        #expect(loop.crashes.count <= 4)
    }

    @Test("a throttled app is refused until the time it was told, then launches")
    func refusedUntilTold() {
        var loop = CrashLoop()
        for crash in [2, 3, 5, 7, 11] { loop.crashed(at: .seconds(crash)) }
        let until = loop.throttledUntil(launchingAt: .seconds(12), limit: 5, window: window)
        #expect(until == .seconds(12))
        #expect(loop.throttledUntil(launchingAt: .milliseconds(12_001), limit: 5, window: window) == nil)
    }

    @Test("a policy's own numbers: a limit of one refuses after any crash in its window")
    func policyNumbers() {
        var loop = CrashLoop()
        loop.crashed(at: .seconds(100))
        #expect(loop.throttledUntil(launchingAt: .seconds(130), limit: 1, window: .seconds(60)) == .seconds(160))
        #expect(loop.throttledUntil(launchingAt: .seconds(161), limit: 1, window: .seconds(60)) == nil)
    }
}
