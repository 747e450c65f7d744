import BackgrounderCore
import Testing

/// The app log's stamps and run markers, and reading the app's own text back out of it.
@Suite("App log format")
struct AppLogFormatTests {
    @Test("a stamp is the local time to the millisecond with its offset, always 28 characters and a space")
    func stampShape() {
        let stamp = String(decoding: AppLogFormat.stamp(seconds: 1_764_563_400, nanoseconds: 7_900_000), as: UTF8.self)
        #expect(stamp.utf8.count == AppLogFormat.stampLength, "\(stamp)")
        #expect(stamp.hasSuffix(" "))
        #expect(stamp.contains(".007"), "milliseconds, zero-padded: \(stamp)")
        let parsed = AppLogFormat.parse(Substring(stamp + "hello"))
        #expect(parsed.text == "hello" && !parsed.isMarker && parsed.stamp != nil)
    }

    @Test("a marker is told from an app's line, and an app cannot write one: its text always follows a stamp")
    func markers() {
        let marker = String(decoding: AppLogFormat.markerLine("launched (user) as pid 7"), as: UTF8.self)
        let parsedMarker = AppLogFormat.parse(Substring(marker.dropLast()))
        #expect(parsedMarker.isMarker && parsedMarker.text == "launched (user) as pid 7", "\(marker)")
        // What an app writes that looks like a marker is stamped first, so it stays the app's.
        let stamp = String(decoding: AppLogFormat.stampNow(), as: UTF8.self)
        let forged = AppLogFormat.parse(Substring(stamp + marker.dropLast()))
        #expect(!forged.isMarker && forged.text.hasPrefix("-- "))
        // A line without a stamp (cut by a rotation, or from before stamps) is the app's text.
        #expect(AppLogFormat.parse("plain").text == "plain" && AppLogFormat.parse("plain").stamp == nil)
    }

    @Test("the app's text and a run's last lines leave the daemon's stamps and markers out")
    func readingBack() {
        let stamp = String(decoding: AppLogFormat.stampNow(), as: UTF8.self)
        func marker(_ text: String) -> String { String(decoding: AppLogFormat.markerLine(text), as: UTF8.self) }
        let log =
            marker("launched (user) as pid 1") + stamp + "first run\n" + marker("crashed: exited with status 3")
            + marker("launched (user) as pid 2") + stamp + "one\n" + stamp + "two\n" + stamp + "three\n"
        #expect(AppLogFormat.appText(log) == "first run\none\ntwo\nthree\n")
        #expect(AppLogFormat.lastRunLines(log, count: 2) == ["two", "three"])
        #expect(
            AppLogFormat.lastRunLines(log + marker("crashed: exited with status 3"), count: 9) == [
                "one", "two", "three",
            ])
    }
}
