import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Authorize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Grant or refuse an app a permission, as the person using the device.",
        discussion: """
            location always       in the foreground and the background, with relaunch for regions and
                                  significant changes (needs NSLocationAlwaysAndWhenInUseUsageDescription)
            location when-in-use  only while the app is in the foreground
            location never        no location
            microphone [granted]  recording (needs NSMicrophoneUsageDescription)
            microphone denied     no recording
            notifications [granted]  local notifications (UNUserNotificationCenter)
            notifications denied     none are added or shown
            The grant is stored and the app hears of it at once.
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: "The app's bundle identifier.", completion: .bundleIdentifier) var id: String
    @Argument(
        help: "The service: location, microphone or notifications.",
        completion: .list(["location", "microphone", "notifications"]))
    var service: String
    @Argument(
        help:
            "For location: always, when-in-use or never; for the microphone and notifications: granted (the default) or denied.",
        completion: .list(["always", "when-in-use", "never", "granted", "denied"]))
    var level: String?

    func run() throws {
        let grant: AuthorizationGrant
        do {
            grant = try AuthorizationGrant(service: service, level: level ?? "")
        } catch {
            throw ValidationError(error.description)
        }
        let reply = try options.request(.authorize(BackgrounderProtocol.Authorize(bundle: id, grant: grant)))
        guard case .done(let done) = reply else { throw ValidationError("unexpected reply") }
        if options.json { try options.printJSON(done) } else { print(done.detail.escapedForTerminal) }
    }
}

struct Regions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the regions an app monitors and where the device last was relative to each.")
    @OptionGroup var options: CommonOptions
    @Argument(help: "The app's bundle identifier.", completion: .bundleIdentifier) var id: String

    func run() throws {
        guard case .regions(let list) = try options.request(.regions(RegionQuery(bundle: id))) else {
            throw ValidationError("unexpected reply")
        }
        if options.json {
            try options.printJSON(list)
            return
        }
        guard !list.regions.isEmpty else {
            print("\(id) monitors no regions")
            return
        }
        for entry in list.regions {
            let region = entry.region
            let center = String(format: "%.6f, %.6f", region.center.latitude, region.center.longitude)
            // The identifier is the app's own text: escaped, it cannot steer the terminal.
            print(
                "\(region.identifier.escapedForTerminal)\t\(center)\tr=\(Int(region.radius)) m\t\(entry.state.rawValue)"
            )
        }
    }
}
