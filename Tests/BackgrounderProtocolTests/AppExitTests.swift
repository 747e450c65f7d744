import BackgrounderProtocol
import Foundation
import Testing

@Suite("AppExit and AppThrottle: structured for scripts, a sentence for people", .timeLimit(.minutes(5)))
struct AppExitTests {
    @Test(
        "each kind of exit reads as before protocol 1.5",
        arguments: [
            (AppExit(kind: .exited, status: 0), "exited: exited with status 0"),
            (AppExit(kind: .crashed, status: 3), "crashed: exited with status 3"),
            (AppExit(kind: .crashed, signal: 11), "crashed: killed by signal 11 (Segmentation fault)"),
            (
                AppExit(kind: .terminated, signal: 9, reason: "background task overran"),
                "terminated: background task overran (signal 9, Killed)"
            ),
            (AppExit(kind: .terminated, reason: "not adopted"), "terminated: not adopted"),
        ])
    func descriptions(exit: AppExit, text: String) {
        #expect(exit.description == text)
    }

    @Test("on the wire: kind, status, signal, reason")
    func wire() throws {
        let exit = AppExit(kind: .terminated, signal: 15, reason: "force quit")
        let text = String(decoding: try JSONEncoder().encode(exit), as: UTF8.self)
        #expect(text.contains(#""kind":"terminated""#) && text.contains(#""signal":15"#))
        #expect(try JSONDecoder().decode(AppExit.self, from: Data(text.utf8)) == exit)
        let throttle = AppThrottle(reason: "crash loop", secondsRemaining: 12.5)
        #expect(throttle.description == "crash loop; launches refused for 12.5 s")
    }
}
