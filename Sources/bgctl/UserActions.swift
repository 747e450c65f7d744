import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol

/// Prints the outcome of a request that changes something.
private func report(_ body: DaemonMessage.Body, options: CommonOptions) throws {
    guard case .done(let done) = body else { throw ValidationError("unexpected reply") }
    if options.json {
        try options.printJSON(done)
    } else {
        print(done.detail.escapedForTerminal)
    }
}

struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Launch an app, or bring it to the foreground; the foreground app goes to the background."
    )
    @OptionGroup var options: CommonOptions
    @Argument(
        help: "The app's bundle identifier, a unique suffix of it (hello), or the bundle's name.",
        completion: .bundleIdentifier)
    var id: String

    func run() throws {
        try report(options.request(.open(AppReference(bundle: options.resolveBundle(id)))), options: options)
    }
}

struct Home: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send the foreground app to the background.")
    @OptionGroup var options: CommonOptions

    func run() throws { try report(options.request(.home), options: options) }
}

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lock the screen: the foreground app goes to the background.")
    @OptionGroup var options: CommonOptions

    func run() throws { try report(options.request(.lock), options: options) }
}

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unlock the screen: the app that was in front comes back.")
    @OptionGroup var options: CommonOptions

    func run() throws { try report(options.request(.unlock), options: options) }
}

struct Quit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Force-quit an app. It is not relaunched for events (except location) until opened again."
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: "The app's bundle identifier.", completion: .bundleIdentifier) var id: String

    func run() throws {
        try report(options.request(.quit(AppReference(bundle: options.resolveBundle(id)))), options: options)
    }
}

struct PS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ps",
        abstract: "List apps: id, pid, state, modes, assertions, background time remaining, CPU seconds."
    )
    @OptionGroup var options: CommonOptions

    func run() throws {
        guard case .apps(let list) = try options.request(.ps) else { throw ValidationError("unexpected reply") }
        if options.json {
            try options.printJSON(list.apps)
            return
        }
        var rows = [["ID", "PID", "STATE", "MODES", "ASSERTIONS", "BG LEFT", "CPU s", "AUDIO UNDER/OVER", "NOTE"]]
        for app in list.apps {
            let note = [app.throttled, app.forceQuit ? "force-quit" : nil, app.lastExit.map { "last: \($0)" }]
                .compactMap { $0 }.joined(separator: "; ")
            rows.append([
                app.id,
                app.pid.map(String.init) ?? "-",
                app.state.rawValue,
                app.modes.isEmpty ? "-" : app.modes.joined(separator: ","),
                app.assertions.isEmpty ? "-" : app.assertions.joined(separator: ","),
                app.backgroundTimeRemaining.map { String(format: "%.1f", $0) } ?? "-",
                String(format: "%.2f", app.cpuSeconds),
                app.audioUnderruns.map { "\($0)/\(app.audioOverruns ?? 0)" } ?? "-",
                note.isEmpty ? "-" : note,
            ])
        }
        print(table(rows))
    }
}

struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Simulate an event: fetch, location, region, download or audio for an app, memory-pressure, or launch (task) or expire (expire) a task.",
        discussion: """
            bgctl simulate task ID IDENTIFIER launches a pending task request now, whatever it waits for; \
            bgctl simulate expire ID IDENTIFIER expires a running one (Xcode's \
            _simulateLaunchForTaskWithIdentifier and _simulateExpirationForTaskWithIdentifier).
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(
        help: "fetch, location, region, download, audio, memory-pressure, task or expire.",
        completion: .list(["fetch", "location", "region", "download", "audio", "memory-pressure", "task", "expire"]))
    var event: String
    @Argument(help: "The app's bundle identifier (not for memory-pressure).", completion: .bundleIdentifier)
    var id: String?
    @Argument(help: "With task or expire: the task identifier.") var task: String?
    @Flag(help: "With memory-pressure: critical, so running apps may be ended too, the foreground app last.")
    var critical = false

    func run() throws {
        if event == "memory-pressure" {
            try report(options.request(.memoryPressure(MemoryPressure(critical: critical))), options: options)
            return
        }
        guard let id else { throw ValidationError("name the app: bgctl simulate \(event) ID") }
        if event == "task" || event == "expire" {
            guard let task else { throw ValidationError("name the task: bgctl simulate \(event) ID IDENTIFIER") }
            let request = TaskDebugRequest(bundle: id, identifier: task)
            try report(
                options.request(event == "task" ? .simulateTask(request) : .expireTask(request)), options: options)
            return
        }
        let events: [LaunchReason] = [.fetch, .location, .region, .download, .audio]
        guard let reason = LaunchReason(rawValue: event), events.contains(reason) else {
            throw ValidationError(
                "'\(event)' is not one of: \(events.map(\.rawValue).joined(separator: ", ")), memory-pressure, task, expire"
            )
        }
        try report(options.request(.wake(WakeRequest(bundle: id, reason: reason))), options: options)
    }
}
