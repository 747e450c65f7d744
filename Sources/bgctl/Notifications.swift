import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Notifications: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "An app's local notifications, pending and delivered; `activate` acts on one as the person would.",
        discussion: """
            Without a verb: the app's pending requests and delivered notifications. activate \
            REQUEST_ID opens the app with the response, as clicking the notification does; \
            --action dismiss dismisses it instead, and --action KEY chooses one of its actions. \
            Without a desktop notification server, delivered notifications are written to the \
            app's log (bgctl logs ID) and listed here; activating one launches the app if it is \
            not running.

            Examples:
              bgctl notifications regionalerts
              bgctl notifications regionalerts activate arrival-home
              bgctl notifications regionalerts activate arrival-home --action dismiss
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String
    @Argument(help: "activate, to act on a delivered notification.", completion: .list(["activate"]))
    var verb: String?
    @Argument(help: "The delivered notification's request identifier.") var request: String?
    @Option(help: "The action: default (open it, the default), dismiss, or an action's key.") var action: String?

    func validate() throws {
        switch verb {
        case nil:
            guard request == nil, action == nil else {
                throw ValidationError("a request identifier and --action go with `activate`")
            }
        case "activate":
            guard request != nil else { throw ValidationError("activate needs the request identifier") }
        case let other?:
            throw ValidationError("unknown verb '\(other)' (known: activate)")
        }
    }

    func run() throws {
        if verb == "activate", let request {
            let action: String? =
                switch action {
                case nil, "default": nil
                case "dismiss": NotificationAction.dismiss
                case let key?: key
                }
            let bundle = try options.resolveBundle(id, unloaded: true)
            let activation = NotificationActivation(bundle: bundle, request: request, action: action)
            guard case .done(let done) = try options.request(.activateNotification(activation)) else {
                throw Failure.unexpectedReply
            }
            if options.json { try options.printJSON("result", done) } else { print(done.detail.escapedForTerminal) }
            return
        }
        guard
            case .notifications(let list) = try options.request(
                .notifications(NotificationsQuery(bundle: options.resolveBundle(id, unloaded: true))))
        else {
            throw Failure.unexpectedReply
        }
        if options.json {
            try options.printJSON("notifications", list)
            return
        }
        print("authorization: \(list.authorization.grantWord)")
        let when = { (seconds: Double?) in
            seconds.map { Date(timeIntervalSince1970: $0).formatted(.iso8601) } ?? "on region"
        }
        var rows = [["STATE", "REQUEST", "WHEN", "TITLE"]]
        rows += list.pending.map { ["pending", $0.request.identifier, when($0.nextFire), $0.request.content.title] }
        rows += list.delivered.map { ["delivered", $0.request.identifier, when($0.date), $0.request.content.title] }
        guard rows.count > 1 else {
            print("no notifications")
            return
        }
        print(table(rows))
    }
}
