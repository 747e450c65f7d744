import Testing

@testable import BackgroundKit

/// Where the commands given to a player lead, known at once: a remote command handler decides
/// on it (is there a next item?) before the player has opened a file.
@Suite("AudioQueuePlayer's queued position", .timeLimit(.minutes(5)))
@MainActor
struct AudioQueuePlayerQueueTests {
    @Test("play, next and previous move the queued position at once; next past the last leads to nothing")
    func queuedPosition() {
        let player = AudioQueuePlayer()
        #expect(player.queuedIndex == nil)
        #expect(player.queuedCount == 0)
        player.play()
        #expect(player.queuedIndex == nil, "nothing to resume")
        player.play(["/nonexistent/1.wav", "/nonexistent/2.wav"])
        #expect(player.queuedIndex == 0)
        #expect(player.queuedCount == 2)
        player.next()
        #expect(player.queuedIndex == 1)
        player.previous()
        #expect(player.queuedIndex == 0)
        player.previous()
        #expect(player.queuedIndex == 0, "previous on the first stays on it")
        player.next()
        player.next()
        #expect(player.queuedIndex == nil, "next after the last stops")
        player.play(["/nonexistent/3.wav"], from: 5)
        #expect(player.queuedIndex == nil)
        #expect(player.queuedCount == 1)
    }
}
