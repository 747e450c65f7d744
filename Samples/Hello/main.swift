import BackgroundKit
import Foundation

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

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

Application.main(delegate: HelloDelegate())
