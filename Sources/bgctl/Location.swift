import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Authorize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Grant or refuse an app a permission, as the person using the device.",
        discussion: """
            Levels by service:
              location        always, when-in-use or never
              microphone      granted (the default) or denied
              notifications   granted (the default) or denied
              media-library   granted (the default) or denied: your music folder, read-only

            location always also reaches the app in the background, with relaunch for regions \
            and significant changes; its Info.plist needs NSLocationAlwaysAndWhenInUseUsageDescription. \
            when-in-use gives location only while the app is in front. Recording needs \
            NSMicrophoneUsageDescription, the music library NSAppleMusicUsageDescription (granted, \
            the daemon shares your music folder with the app, read-only; denied, takes it \
            back). Case does not matter. The grant is stored and the app \
            hears of it at once; bgctl permissions lists them.

            Examples:
              bgctl authorize regionalerts location always
              bgctl authorize backgroundplayer microphone
              bgctl authorize hello notifications denied
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String
    @Argument(
        help: "location, microphone, notifications or media-library.",
        completion: .list(["location", "microphone", "notifications", "media-library"]))
    var service: String
    @Argument(
        help: "The level (see above); for the others than location, granted when left out.",
        completion: .list(["always", "when-in-use", "never", "granted", "denied"]))
    var level: String?

    func validate() throws {
        do {
            _ = try AuthorizationGrant(service: service, level: level ?? "")
        } catch {
            throw ValidationError(error.description)
        }
    }

    func run() throws {
        let grant = try AuthorizationGrant(service: service, level: level ?? "")
        let bundle = try options.resolveBundle(id)
        let reply = try options.request(.authorize(BackgrounderProtocol.Authorize(bundle: bundle, grant: grant)))
        guard case .done(let done) = reply else { throw Failure.unexpectedReply }
        if options.json { try options.printJSON("result", done) } else { print(done.detail.escapedForTerminal) }
    }
}

struct Regions: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the regions an app monitors and where the device last was relative to each.",
        discussion: """
            STATE is inside, outside or unknown (no fix has placed the device yet); it is kept \
            across restarts, so an entry is not reported twice.

            Examples:
              bgctl regions regionalerts
              bgctl regions org.backgrounder.samples.regionalerts --json
            """)
    @OptionGroup var options: CommonOptions
    @Argument(help: "The app (its bundle identifier, a unique suffix or its name).", completion: .bundleIdentifier)
    var id: String

    func run() throws {
        let bundle = try options.resolveBundle(id)
        guard case .regions(let list) = try options.request(.regions(RegionQuery(bundle: bundle))) else {
            throw Failure.unexpectedReply
        }
        if options.json {
            try options.printJSON("regions", list.regions)
            return
        }
        guard !list.regions.isEmpty else {
            print("\(bundle) monitors no regions")
            return
        }
        let rows = list.regions.map { entry in
            let region = entry.region
            // The identifier is the app's own text; table() escapes it.
            return [
                region.identifier, String(format: "%.6f", region.center.latitude),
                String(format: "%.6f", region.center.longitude), String(Int(region.radius)), entry.state.rawValue,
            ]
        }
        print(table([["REGION", "LATITUDE", "LONGITUDE", "RADIUS m", "STATE"]] + rows, width: terminalWidth))
    }
}
