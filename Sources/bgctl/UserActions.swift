import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

/// Prints the outcome of a request that changes something.
func report(_ body: DaemonMessage.Body, options: CommonOptions) throws {
    guard case .done(let done) = body else { throw Failure.unexpectedReply }
    if options.json {
        try options.printJSON("result", done)
    } else {
        print(done.detail.escapedForTerminal)
    }
}

/// The help for an argument that names an app.
let appArgumentHelp = "The app: its bundle identifier, a unique suffix of it (hello) or its name (Hello)."

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Launch an app, or bring it to the foreground; the foreground app goes to the background.",
        discussion: """
            As tapping its icon: a force-quit app may be relaunched for events again. While the \
            screen is locked, open is refused: unlock first.

            A launch is reported once the app checked in with the daemon. An app that ends \
            before that is a failure (exit status 1): bgctl prints how it ended and the last \
            lines it wrote. With --no-wait, open returns as soon as the process is started.

            Examples:
              bgctl open org.backgrounder.samples.hello
              bgctl open hello --no-wait
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String
    @Flag(help: "Return once the process is started, without waiting for it to check in.") var noWait = false

    func run() throws {
        let request = OpenApp(bundle: try options.resolveBundle(id), wait: !noWait)
        // The daemon answers within its check-in deadline, at most a minute: wait longer than that.
        try report(options.request(.open(request), timeout: .seconds(70)), options: options)
    }
}

struct Home: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send the foreground app to the background.",
        discussion: """
            As the home gesture: the app gets its background time, then is suspended unless a \
            background mode or task keeps it running.

            Example:
              bgctl home
            """)
    @OptionGroup var options: CommonOptions

    func run() throws { try report(options.request(.home), options: options) }
}

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lock the screen: the foreground app goes to the background.",
        discussion: """
            With logind on the system bus, the session's own lock does the same (docs/DESKTOP.md).

            Example:
              bgctl lock
            """)
    @OptionGroup var options: CommonOptions

    func run() throws { try report(options.request(.lock), options: options) }
}

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unlock the screen: the app that was in front comes back.",
        discussion: """
            Example:
              bgctl unlock
            """)
    @OptionGroup var options: CommonOptions

    func run() throws { try report(options.request(.unlock), options: options) }
}

struct Quit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Force-quit an app. It is not relaunched for events (except location) until opened again.",
        discussion: """
            As swiping it away in the app switcher: it is told it will terminate, then ended.

            Examples:
              bgctl quit backgroundplayer
              bgctl quit org.backgrounder.samples.hikerecorder
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String

    func run() throws {
        try report(options.request(.quit(AppReference(bundle: options.resolveBundle(id)))), options: options)
    }
}

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Simulate an event for an app, memory pressure, or a task's launch or expiry.",
        discussion: """
            Events: fetch, location, region, download and audio wake or launch the app as the real \
            event would. memory-pressure takes no app: it is the system's; running apps hear a \
            memory warning (the background ones first), then jetsam ends a suspended app, or \
            with --critical a running one an earlier pressure warned; --warning only warns. \
            task ID IDENTIFIER \
            launches a pending task request now, whatever it waits for; expire ID IDENTIFIER \
            expires a running one (Xcode's _simulateLaunchForTaskWithIdentifier and \
            _simulateExpirationForTaskWithIdentifier).

            Positions without a receiver, as Xcode's simulated locations: location --at \
            LAT,LON[,ALT] gives the device one fix now, and route FILE replays a recorded walk \
            (a GPX track, or an NMEA log) from now on, paced by its own times (--speed 60: a \
            minute a second; the fixes keep the walk's own times from now, so a region's dwell \
            and a significant change's interval hold). Each fix goes where gpsd's would: the standard, significant-change \
            and region filters, and every app's queue; a position is the device's, so it names \
            no app.

            Examples:
              bgctl simulate fetch feedreader
              bgctl simulate memory-pressure --warning
              bgctl simulate memory-pressure --critical
              bgctl simulate task compactor org.backgrounder.samples.compactor.compact
              bgctl simulate location --at 46.3633,14.0814,596
              bgctl simulate route walk.gpx --speed 60
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(
        help: "fetch, location, region, download, audio, memory-pressure, task, expire or route.",
        completion: .list([
            "fetch", "location", "region", "download", "audio", "memory-pressure", "task", "expire", "route",
        ]))
    var event: String
    @Argument(
        help: ArgumentHelp(appArgumentHelp + " Not for memory-pressure.", valueName: "id"),
        completion: .bundleIdentifier)
    var id: String?
    @Argument(help: "With task or expire: the task identifier.") var task: String?
    @Flag(help: "With memory-pressure: critical, so running apps may be ended too, the foreground app last.")
    var critical = false
    @Flag(help: "With memory-pressure: only warn the running apps (MEMORY_WARNING), ending none.")
    var warning = false
    @Option(
        help: ArgumentHelp(
            "With location: the device's position now, in degrees (and metres).", valueName: "lat,lon[,alt]"))
    var at: String?
    @Option(help: "With route: how many times faster than recorded (60: a minute a second).")
    var speed = 1.0

    func validate() throws {
        if at != nil && event != "location" { throw ValidationError("--at goes with location") }
        if at != nil, let id { throw ValidationError("a position is the device's, not one app's: leave out '\(id)'") }
        if speed != 1 && event != "route" { throw ValidationError("--speed goes with route") }
        guard speed.isFinite, speed > 0 else { throw ValidationError("--speed must be more than 0, got \(speed)") }
        if event == "memory-pressure", let id {
            throw ValidationError("memory-pressure is the system's, not one app's: leave out '\(id)'")
        }
        if critical && event != "memory-pressure" { throw ValidationError("--critical goes with memory-pressure") }
        if warning && event != "memory-pressure" { throw ValidationError("--warning goes with memory-pressure") }
        if warning && critical { throw ValidationError("--warning and --critical are two stages: give one") }
        if task != nil && event != "task" && event != "expire" {
            throw ValidationError("only task and expire take a task identifier")
        }
    }

    func run() throws {
        if let at {
            try report(options.request(.simulateLocation(SimulatedLocation(fixes: [Self.fix(at)]))), options: options)
            return
        }
        if event == "route" {
            guard let path = id else { throw Failure.usage("name the file: bgctl simulate route FILE") }
            return try replay(path)
        }
        if event == "memory-pressure" {
            try report(
                options.request(.memoryPressure(MemoryPressure(critical: critical, warning: warning))), options: options
            )
            return
        }
        let events: [LaunchReason] = [.fetch, .location, .region, .download, .audio]
        let isTask = event == "task" || event == "expire"
        let reason = LaunchReason(rawValue: event).flatMap { events.contains($0) ? $0 : nil }
        guard isTask || reason != nil else {
            let known = events.map(\.rawValue) + ["memory-pressure", "task", "expire", "route"]
            let hint =
                NearMiss.nearest(event, among: known).map { "did you mean \($0)?" }
                ?? "known: \(known.joined(separator: ", "))"
            throw Failure.usage("'\(event)' is not an event to simulate; \(hint)")
        }
        guard let id else { throw Failure.usage("name the app: bgctl simulate \(event) ID") }
        let bundle = try options.resolveBundle(id)
        if let reason {
            try report(options.request(.wake(WakeRequest(bundle: bundle, reason: reason))), options: options)
            return
        }
        guard let task else { throw Failure.usage("name the task: bgctl simulate \(event) ID IDENTIFIER") }
        let request = TaskDebugRequest(bundle: bundle, identifier: task)
        try report(options.request(event == "task" ? .simulateTask(request) : .expireTask(request)), options: options)
    }

    /// `46.3633,14.0814[,596]` as a fix taken now.
    static func fix(_ text: String) throws -> Location {
        let numbers = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard (2...3).contains(numbers.count), numbers.allSatisfy({ $0?.isFinite == true }) else {
            throw Failure.usage("--at takes LAT,LON or LAT,LON,ALT in degrees and metres, got '\(text)'")
        }
        let coordinate = Coordinate(latitude: numbers[0]!, longitude: numbers[1]!)
        guard coordinate.isValid else {
            throw Failure.usage("--at \(text) is no place on Earth: latitude -90...90, longitude -180...180")
        }
        let altitude = numbers.count == 3 ? numbers[2] : nil
        return Location(
            coordinate: coordinate, altitude: altitude, horizontalAccuracy: 5, timestamp: Date().timeIntervalSince1970,
            fixMode: altitude == nil ? .twoDimensional : .threeDimensional)
    }

    /// Replays a route from now on: each fix sent at its own time after the first, divided by
    /// ``speed``, and dated with the walk's own spacing from now, so the filters see it as
    /// walked (a region's 20 s dwell, a significant change's 5 minutes); with a speed above 1
    /// the fixes' times run ahead of the clock. Fixes due within a few milliseconds of each
    /// other go in one request.
    private func replay(_ path: String) throws {
        let fixes: [Location]
        do {
            fixes = try RouteFile.read(path)
        } catch {
            throw Failure(code: "badRoute", message: "\(error)", exitStatus: 65)
        }
        let clock = ContinuousClock()
        let started = clock.now
        let now = Date().timeIntervalSince1970
        let first = fixes[0].timestamp
        var pending: [Location] = []
        func send() throws {
            guard !pending.isEmpty else { return }
            _ = try options.request(.simulateLocation(SimulatedLocation(fixes: pending)))
            pending = []
        }
        for fix in fixes {
            let offset = (fix.timestamp - first) / speed
            let due = started + .seconds(offset)
            if due - clock.now > .milliseconds(5) {
                try send()
                Thread.sleep(forTimeInterval: max(0, (due - clock.now).seconds))
            }
            var shifted = fix
            shifted.timestamp = now + (fix.timestamp - first)
            pending.append(shifted)
            if pending.count == SimulatedLocation.maximumFixes { try send() }
        }
        try send()
        let recorded = fixes[fixes.count - 1].timestamp - first
        let done = Done(
            detail: String(
                format: "replayed %d fixes of %@ (%.0f s recorded, at x%g: %.1f s)", fixes.count,
                (path as NSString).lastPathComponent, recorded, speed, (clock.now - started).seconds))
        if options.json { try options.printJSON("result", done) } else { print(done.detail.escapedForTerminal) }
    }
}
