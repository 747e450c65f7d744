import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol

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

            Examples:
              bgctl open org.backgrounder.samples.hello
              bgctl open hello
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String

    func run() throws {
        try report(options.request(.open(AppReference(bundle: options.resolveBundle(id)))), options: options)
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
            event would. memory-pressure takes no app: it is the system's. task ID IDENTIFIER \
            launches a pending task request now, whatever it waits for; expire ID IDENTIFIER \
            expires a running one (Xcode's _simulateLaunchForTaskWithIdentifier and \
            _simulateExpirationForTaskWithIdentifier).

            Examples:
              bgctl simulate fetch feedreader
              bgctl simulate memory-pressure --critical
              bgctl simulate task compactor org.backgrounder.samples.compactor.compact
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(
        help: "fetch, location, region, download, audio, memory-pressure, task or expire.",
        completion: .list(["fetch", "location", "region", "download", "audio", "memory-pressure", "task", "expire"]))
    var event: String
    @Argument(
        help: ArgumentHelp(appArgumentHelp + " Not for memory-pressure.", valueName: "id"),
        completion: .bundleIdentifier)
    var id: String?
    @Argument(help: "With task or expire: the task identifier.") var task: String?
    @Flag(help: "With memory-pressure: critical, so running apps may be ended too, the foreground app last.")
    var critical = false

    func validate() throws {
        if event == "memory-pressure", let id {
            throw ValidationError("memory-pressure is the system's, not one app's: leave out '\(id)'")
        }
        if critical && event != "memory-pressure" { throw ValidationError("--critical goes with memory-pressure") }
        if task != nil && event != "task" && event != "expire" {
            throw ValidationError("only task and expire take a task identifier")
        }
    }

    func run() throws {
        if event == "memory-pressure" {
            try report(options.request(.memoryPressure(MemoryPressure(critical: critical))), options: options)
            return
        }
        let events: [LaunchReason] = [.fetch, .location, .region, .download, .audio]
        let isTask = event == "task" || event == "expire"
        let reason = LaunchReason(rawValue: event).flatMap { events.contains($0) ? $0 : nil }
        guard isTask || reason != nil else {
            let known = events.map(\.rawValue) + ["memory-pressure", "task", "expire"]
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
}
