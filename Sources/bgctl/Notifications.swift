import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Notifications: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "An app's local notifications, pending and delivered; `activate` acts on one as the person would.",
        discussion: """
            --follow prints each notification as it is delivered, every app's or one app's, \
            until interrupted: the terminal's notification centre, with or without a desktop \
            (with --json, one object a line, key notification). \
            Without a verb: the app's pending requests and delivered notifications. activate \
            REQUEST_ID opens the app with the response, as clicking the notification does; \
            --action dismiss dismisses it instead, and --action KEY chooses one of its actions. \
            Without a desktop notification server, delivered notifications are written to the \
            app's log (bgctl logs ID) and listed here; activating one launches the app if it is \
            not running.

            Examples:
              bgctl notifications regionalerts
              bgctl notifications --follow
              bgctl notifications regionalerts activate arrival-home
              bgctl notifications regionalerts activate arrival-home --action dismiss
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(
        help: ArgumentHelp(appArgumentHelp + " Optional with --follow.", valueName: "id"), completion: .bundleIdentifier
    )
    var id: String?
    @Argument(help: "activate, to act on a delivered notification.", completion: .list(["activate"]))
    var verb: String?
    @Argument(help: "The delivered notification's request identifier.") var request: String?
    @Option(help: "The action: default (open it, the default), dismiss, or an action's key.") var action: String?
    @Flag(help: "Print notifications as they are delivered, until interrupted.") var follow = false

    func validate() throws {
        if follow {
            guard verb == nil else { throw ValidationError("--follow lists deliveries; it takes no verb") }
            return
        }
        guard id != nil else { throw ValidationError("name the app (or follow every app's with --follow)") }
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
        if follow { return try followDeliveries() }
        guard let id else { throw Failure.usage("name the app") }
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

    /// `NOTIFICATIONS_FOLLOW`, then a line per delivery until the daemon goes away.
    private func followDeliveries() throws {
        let bundle = try id.map { try options.resolveBundle($0, unloaded: true) }
        let client = try options.daemon.connect()
        // Written at once, line by line (print buffers when standard output is a pipe).
        let emit = { (line: String) in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        let reply = try client.request(.followNotifications(NotificationsFollow(bundle: bundle)))
        let done: Done
        switch reply.body {
        case .done(let followed): done = followed
        case .error(let error): throw Failure.failed(error.message)
        default: throw Failure.unexpectedReply
        }
        try client.waitWithoutTimeout()
        // First the daemon's OK, so a script knows it follows from here on.
        emit(options.json ? try JSONOutput.line("result", done) : "\(done.detail) (Ctrl-C ends it)")
        while true {
            let received: Result<DaemonMessage, ControlClientError>
            do {
                received = .success(try client.receive())
            } catch {
                received = .failure(error)
            }
            guard case .success(let message) = received else {
                throw Failure.failed("the connection to the daemon ended (it stopped)")
            }
            guard case .notificationDelivered(let notice) = message.body else { continue }
            if options.json {
                emit(try JSONOutput.line("notification", notice))
                continue
            }
            let content = notice.notification.request.content
            var text = content.heading
            if !content.body.isEmpty { text += (text.isEmpty ? "" : ": ") + content.body }
            let time = Date(timeIntervalSince1970: notice.notification.date).formatted(.iso8601)
            emit("\(time) \(notice.app): \(text) (\(notice.notification.request.identifier))".escapedForTerminal)
        }
    }
}
