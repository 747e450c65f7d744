import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol

struct Permissions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Show what each app has been granted (location, microphone, notifications, music); `bgctl authorize` changes it.",
        discussion: """
            Lists every loaded app, and apps no longer loaded that still have grants stored. \
            Location is always, when-in-use, never or not-determined; the microphone, \
            notifications and the music library (MUSIC) granted, denied or not-determined (not determined: nobody decided, so \
            the app gets none).

            Examples:
              bgctl permissions
              bgctl permissions regionalerts --json
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp("Only this app. " + appArgumentHelp, valueName: "id"), completion: .bundleIdentifier)
    var id: String?

    func run() throws {
        let bundle = try id.map { try options.resolveBundle($0, unloaded: true) }
        guard case .permissions(let list) = try options.request(.permissions(PermissionsQuery(bundle: bundle))) else {
            throw Failure.unexpectedReply
        }
        if options.json {
            try options.printJSON("apps", list.apps)
            return
        }
        guard !list.apps.isEmpty else {
            print("no apps")
            return
        }
        let rows = list.apps.map { entry in
            [
                entry.bundle.rawValue, entry.loaded ? entry.name ?? "-" : "(not loaded)", entry.location.grantWord,
                entry.microphone.grantWord, entry.notifications?.grantWord ?? "-",
                entry.mediaLibrary?.grantWord ?? "-",
            ]
        }
        print(table([["ID", "NAME", "LOCATION", "MICROPHONE", "NOTIFICATIONS", "MUSIC"]] + rows))
    }
}
