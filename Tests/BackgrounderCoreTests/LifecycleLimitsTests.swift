import BackgrounderCore
import Testing

@Suite("Life cycle: limits hostile apps meet", .timeLimit(.minutes(5)))
struct LifecycleLimitsTests {
    typealias Fixture = LifecycleFixture

    // MARK: Tasks

    @Test("the 33rd open task is refused with the reason; ending one makes room")
    func openTaskCap() throws {
        var app = Fixture.active()
        var ids: [BackgroundTaskID] = []
        for index in 0..<AppLifecycle.maximumOpenTasks {
            let id = app.beginTask(named: "task \(index)", now: .zero)
            ids.append(try #require(id))
        }

        #expect(app.taskRefusal(named: "one more") == .tooManyTasks(limit: 32))
        #expect(app.beginTask(named: "one more", now: .zero) == nil)
        #expect(app.tasks.count == 32)
        #expect("\(TaskRefusal.tooManyTasks(limit: 32))".contains("32 open background tasks"))

        _ = app.endTask(ids[0], now: .zero)
        #expect(app.taskRefusal(named: "one more") == nil)
        #expect(app.beginTask(named: "one more", now: .zero) != nil)
    }

    @Test("a name of 256 bytes is accepted, 257 refused; bytes, not characters, count")
    func taskNameLength() {
        var app = Fixture.active()
        #expect(app.beginTask(named: String(repeating: "a", count: 256), now: .zero) != nil)

        #expect(app.taskRefusal(named: String(repeating: "a", count: 257)) == .nameTooLong(bytes: 257, limit: 256))
        // 86 three-byte characters: 258 bytes.
        #expect(app.taskRefusal(named: String(repeating: "€", count: 86)) == .nameTooLong(bytes: 258, limit: 256))
        #expect(app.beginTask(named: String(repeating: "a", count: 257), now: .zero) == nil)
        #expect(app.tasks.count == 1)
    }

    // MARK: Check-in deadline

    @Test("a background launch that never checks in is suspended at the deadline, not before")
    func neverChecksIn() {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .seconds(10), checkInDeadline: .seconds(10))

        #expect(app.checkInDue == .seconds(20))
        #expect(app.nextDeadline == .seconds(20))
        #expect(app.evaluate(now: .seconds(19)) == [])
        #expect(app.state == .inactive)
        #expect(app.evaluate(now: .seconds(20)) == [.suspend])
        #expect(app.state == .suspended)
        #expect(app.checkInDue == nil)
        #expect(app.nextDeadline == nil)
    }

    @Test("the default deadline is 10 s")
    func defaultDeadline() {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .seconds(3))
        #expect(app.checkInDue == .seconds(13))
    }

    @Test("an app that exits on suspend is ended at the deadline instead")
    func exitsOnSuspendIsEnded() {
        var app = Fixture.notRunning(manifest: Fixture.exitsOnSuspendManifest)
        app.launched(foreground: false, now: .zero, checkInDeadline: .seconds(10))

        #expect(app.evaluate(now: .seconds(10)) == [.terminate(.exitsOnSuspend)])
        #expect(app.terminating == .exitsOnSuspend)
    }

    @Test("checking in in time clears the deadline; the grace rules take over")
    func checksInInTime() {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .zero, checkInDeadline: .seconds(10))
        _ = app.checkedIn(now: .seconds(2))

        #expect(app.checkInDue == nil)
        #expect(app.state == .background)
        #expect(app.nextDeadline == .seconds(5))
    }

    @Test("a foreground launch has no check-in deadline; one brought to the front loses it")
    func foregroundHasNone() {
        var app = Fixture.notRunning()
        app.launched(foreground: true, now: .zero)
        #expect(app.checkInDue == nil)
        #expect(app.nextDeadline == nil)

        var background = Fixture.notRunning()
        background.launched(foreground: false, now: .zero)
        _ = background.moveToForeground(now: .seconds(1))
        #expect(background.checkInDue == nil)
        #expect(background.evaluate(now: .seconds(60)) == [])
        #expect(background.state == .inactive)
    }

    @Test("a task begun before checking in holds the deadline off; ended past it, the app is suspended")
    func taskBeforeCheckIn() throws {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .zero)
        let begun = app.beginTask(named: "upload", now: .seconds(1))
        let id = try #require(begun)

        #expect(app.checkInDue == nil)
        #expect(app.evaluate(now: .seconds(10)) == [])
        #expect(app.state == .inactive)
        #expect(app.endTask(id, now: .seconds(12)) == [.suspend])
        #expect(app.state == .suspended)
        #expect(app.tasks.isEmpty)
    }

    @Test("suspended at the deadline, an event wakes it into the ordinary background rules")
    func wokenAfterTheDeadline() {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .zero)
        _ = app.evaluate(now: .seconds(10))

        #expect(app.wake(now: .seconds(30)) == [.resume])
        #expect(app.state == .background)
        #expect(app.nextDeadline == .seconds(35))
    }
}
