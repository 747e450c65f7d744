import BackgroundKit
import Foundation
import SampleSupport

// Fibonacci: the finite-length background task of the background-modes tutorial. It computes
// the next Fibonacci number twice a second, holding a background task while it does, so
// it keeps computing for a while after it leaves the foreground. When the expiration handler
// runs it ends the task and is suspended; opened again, it picks up where it stopped.

@MainActor
final class FibonacciDelegate: ApplicationDelegate {
    private var previous: UInt64 = 0
    private var current: UInt64 = 1
    private var index = 1
    private var task = BackgroundTaskIdentifier.invalid

    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("launched (\(reason.rawValue))")
        registerBackgroundTask(application)
        Task { await compute(application) }
    }

    func applicationDidBecomeActive(_ application: Application) {
        say("active at n=\(index)")
        if task == .invalid { registerBackgroundTask(application) }
    }

    func applicationDidEnterBackground(_ application: Application) {
        say("entered the background at n=\(index)")
    }

    func applicationWillTerminate(_ application: Application) {
        say("terminating at n=\(index)")
    }

    private func registerBackgroundTask(_ application: Application) {
        task = application.beginBackgroundTask(withName: "fibonacci") { [weak self] in
            guard let self else { return }
            say("expiration handler: ending the task at n=\(self.index)")
            application.endBackgroundTask(self.task)
            self.task = .invalid
        }
        say(task == .invalid ? "no background time left" : "began background task \(task.rawValue)")
    }

    private func compute(_ application: Application) async {
        while true {
            try? await Task.sleep(for: .milliseconds(500))
            let (next, overflow) = previous.addingReportingOverflow(current)
            if overflow {
                // Past n=93 the numbers no longer fit in 64 bits: start again, as the tutorial does.
                say("n=\(index + 1) overflows 64 bits; starting again")
                (previous, current, index) = (0, 1, 1)
            } else {
                (previous, current, index) = (current, next, index + 1)
            }
            if application.applicationState == .background {
                let remaining = application.backgroundTimeRemaining
                say("n=\(index) value=\(current) remaining=\(String(format: "%.1f", remaining))s")
            } else {
                say("n=\(index) value=\(current)")
            }
        }
    }
}

let identifier = "org.backgrounder.samples.fibonacci"
let usage = """
    usage: Fibonacci [--help]
    Fibonacci computes Fibonacci numbers twice a second and, sent to the background, goes on
    for as long as its background task lasts (about 30 s), then is suspended. backgrounderd
    launches it; a person does not:
      bgctl open ID    launch it, or bring it to the foreground
      bgctl home       send it to the background
      bgctl ps         its state and the background time left
    where ID is \(identifier).
    example:
      bgctl open \(identifier) && bgctl home && bgctl logs \(identifier)
    """
SampleLaunch.commandOrApp(program: "Fibonacci", identifier: identifier) {
    SampleLaunch.appOnly($0, program: "Fibonacci", usage: usage)
}
MainActor.assumeIsolated {
    Application.main(delegate: FibonacciDelegate())
}
