import BackgroundKit
import Foundation
import SampleSupport

// Hello: the smallest app bundle. It checks in on the connection backgrounderd handed it
// at launch and prints what happens to it, so a new author can see a bundle, a manifest
// and the life cycle working end to end (its output is in STATE_DIR/logs/ID.log).

@MainActor
final class HelloDelegate: ApplicationDelegate {
    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("Hello from a bundle: launched (\(reason.rawValue)) as \(application.bundleIdentifier)")
    }

    func applicationDidBecomeActive(_ application: Application) { say("Hello is in the foreground") }

    func applicationDidEnterBackground(_ application: Application) {
        say("Hello is in the background; it will be suspended")
    }

    func applicationWillTerminate(_ application: Application) { say("Hello is terminating") }
}

let identifier = "org.backgrounder.samples.hello"
let usage = """
    usage: Hello [--help]
    Hello is the smallest app bundle: it prints what happens to it (launched, in the foreground,
    in the background, terminating) to its log. backgrounderd launches it; a person does not:
      bgctl open ID    launch it, or bring it to the foreground
      bgctl home       send it to the background (then it is suspended)
      bgctl logs ID    read what it printed
    where ID is \(identifier).
    example:
      bgctl open \(identifier) && bgctl home && bgctl logs \(identifier)
    """
SampleLaunch.commandOrApp(program: "Hello", identifier: identifier) {
    SampleLaunch.appOnly($0, program: "Hello", usage: usage)
}
Application.main(delegate: HelloDelegate())
