import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Push: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send a push to an app: a silent one (the default) wakes or launches it within its push budget.",
        discussion: """
            Over the app's budget (about 3 an hour) the push is deferred, keeping only the latest \
            payload, and delivered when budget returns: bgctl says until when. Exit 1 when refused.

            Examples:
              bgctl push feedreader
              bgctl push feedreader --payload '{"aps":{"content-available":1},"n":2}'
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp + " Or use --token.", valueName: "id"), completion: .bundleIdentifier)
    var id: String?
    @Option(help: "The app's device token instead of its bundle identifier.") var token: String?
    @Option(help: ArgumentHelp("The payload, a JSON object of at most 4096 bytes.", valueName: "JSON"))
    var payload = #"{"aps":{"content-available":1}}"#

    func validate() throws {
        guard (id == nil) != (token == nil) else { throw ValidationError("name the app by ID or by --token, not both") }
        guard (try? JSONValue(text: payload)) != nil else {
            throw ValidationError("--payload is not JSON: \(payload.prefix(80))")
        }
    }

    func run() throws {
        let request = PushRequest(
            bundle: try id.map { try options.resolveBundle($0) }, token: token, payload: try JSONValue(text: payload))
        guard case .pushed(let result) = try options.request(.push(request)) else {
            throw Failure.unexpectedReply
        }
        if options.json {
            try options.printJSON("result", result)
        } else {
            print(result.detail.escapedForTerminal)
        }
    }
}

struct Tasks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Pending fetches, app-refresh and processing tasks and deferred pushes: when each may run, and what it waits for.",
        discussion: """
            Examples:
              bgctl tasks
              bgctl tasks compactor --json
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(
        help: ArgumentHelp("Only this app (default: every app). " + appArgumentHelp, valueName: "id"),
        completion: .bundleIdentifier)
    var id: String?

    func run() throws {
        guard
            case .schedule(let list) = try options.request(
                .tasks(ScheduleQuery(bundle: id.map { try options.resolveBundle($0) })))
        else {
            throw Failure.unexpectedReply
        }
        if options.json {
            try options.printJSON("tasks", list.entries)
            return
        }
        guard !list.entries.isEmpty else {
            print("nothing scheduled")
            return
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var rows = [["APP", "KIND", "TASK", "NEXT", "WAITING FOR"]]
        for entry in list.entries {
            let next =
                entry.running
                ? "running" : entry.nextRun.map { formatter.string(from: Date(timeIntervalSince1970: $0)) } ?? "-"
            rows.append([
                entry.bundle.rawValue, entry.kind, entry.identifier ?? "-", next,
                entry.waitingFor.isEmpty ? "-" : entry.waitingFor.joined(separator: ", "),
            ])
        }
        print(table(rows))
    }
}
