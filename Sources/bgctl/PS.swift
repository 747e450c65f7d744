import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol

struct PS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ps",
        abstract: "List apps: state, process, background time left, CPU time and what keeps them running.",
        discussion: """
            APP is the last part of the bundle identifier, which every command accepts in place of \
            the whole. BG LEFT is the background time left, counting down only in the background \
            (- when suspended or in front). NOTE says what matters now: a crash-loop throttle, a \
            force quit, how the last process ended, a permission it waits for a person to give \
            (bgctl prompts). --wide adds the full identifier, modes, \
            assertions and audio underruns and overruns, and does not cut lines to the terminal.

            Examples:
              bgctl ps
              bgctl ps --wide
              bgctl ps --json | jq '.apps[] | select(.state == "suspended") | .id'
            """
    )
    @OptionGroup var options: CommonOptions
    @Flag(help: "Every column, and lines as long as they need.") var wide = false

    func run() throws {
        guard case .apps(let list) = try options.request(.ps) else { throw Failure.unexpectedReply }
        if options.json {
            try options.printJSON("apps", list.apps)
            return
        }
        let header =
            wide
            ? ["ID", "PID", "STATE", "MODES", "ASSERTIONS", "BG LEFT", "CPU s", "AUDIO U/O", "NOTE"]
            : ["APP", "PID", "STATE", "BG LEFT", "CPU s", "NOTE"]
        let rows = list.apps.map { app in
            let common = [
                app.pid.map(String.init) ?? "-", app.state.rawValue,
            ]
            let time = [
                Self.backgroundTimeLeft(app), String(format: "%.2f", app.cpuSeconds),
            ]
            guard wide else { return [shortName(app.id.rawValue)] + common + time + [Self.note(app)] }
            return [app.id.rawValue] + common + [
                app.modes.isEmpty ? "-" : app.modes.joined(separator: ","),
                app.assertions.isEmpty ? "-" : app.assertions.joined(separator: ","),
            ] + time + [app.audioUnderruns.map { "\($0)/\(app.audioOverruns ?? 0)" } ?? "-", Self.note(app)]
        }
        print(table([header] + rows, width: wide ? nil : terminalWidth))
    }

    /// Seconds left in the background; `-` where no clock runs (suspended, in front, not running).
    static func backgroundTimeLeft(_ app: AppInfo) -> String {
        guard app.state == .background, let left = app.backgroundTimeRemaining else { return "-" }
        return left.isFinite ? String(format: "%.1f", left) : "unlimited"
    }

    /// What matters about the app now: a force quit or the last exit only while it is not
    /// running (a relaunched app is past both), a throttle while it holds.
    static func note(_ app: AppInfo) -> String {
        var notes: [String] = []
        if let throttled = app.throttled { notes.append(throttled.description) }
        if let waits = app.waitsForConsent, !waits.isEmpty {
            notes.append("waits for consent: \(waits.joined(separator: ", ")) (bgctl prompts)")
        }
        if app.state == .background, let seconds = app.refillFrozenSeconds {
            // A background player frozen while its audio ring is full (docs/AUDIO.md).
            notes.append(
                String(format: "frozen between refills: %.0f s in %d", seconds, app.refillFreezes ?? 0)
                    + (app.frozenForRefill == true ? " (now)" : ""))
        }
        if app.state == .notRunning {
            // "terminated: force quit" already says it.
            if app.forceQuit && app.lastExit?.reason != TerminationReason.forceQuit.rawValue {
                notes.append("force-quit")
            }
            if let exit = app.lastExit { notes.append(exit.description) }
        }
        return notes.isEmpty ? "-" : notes.joined(separator: "; ")
    }
}
