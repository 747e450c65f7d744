import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Permission prompts on the desktop (issue 24, item 4): the real HikeRecorder asks for its
/// location, the daemon shows iOS's alert as a notification with the prompt's buttons on a
/// private session bus, and a notification server peer presses one, as a person would. Judged
/// by the grant, the recorder's track, `bgctl ps` and what the server was asked to show.
@Suite("Permission prompts on the desktop", .enabled(if: SessionBus.isAvailable), .timeLimit(.minutes(5)), .tearsDown)
struct ConsentDesktopTests {
    static let recorder = "org.backgrounder.samples.hikerecorder"
    static let alerts = "org.backgrounder.samples.regionalerts"

    @Test(
        "a location prompt shows as a notification with iOS's buttons; a forged press grants nothing; the person's press grants always and the recorder records; ps notes the wait; a prompt answered with bgctl answer leaves the desktop"
    )
    func answeredOnTheDesktop() async throws {
        let directory = try TemporaryDirectory(prefix: "consent-desktop")
        // The bus first, then the directory: dbus-daemon unlinks its socket as it goes.
        atTeardown { directory.remove() }
        let bus = try await SessionBus(directory: directory)
        atTeardown { await bus.stop() }
        let server = try await NotificationServerPeer(bus: bus, directory: directory)
        atTeardown { await server.stop() }
        let running = try await LifecycleTests.Running(prefix: "consent-desktop-daemon", environment: bus.environment) {
            try SampleBundles.assemble("HikeRecorder", into: $0)
            try SampleBundles.assemble("RegionAlerts", into: $0)
        }
        atTeardown { await running.tearDown() }
        #expect(
            await waitUntil {
                (try? running.daemon.status().desktop?.notifications) == "Backgrounder test notifications 1.0"
            })
        let socket = running.daemon.socketPath
        func bgctl(_ arguments: String...) async throws -> CLIRun {
            try await CLIRun.run(Locations.product("bgctl"), arguments + ["--socket", socket])
        }
        func waiting() async throws -> [ConsentPrompt] {
            let listed = try await bgctl("prompts", "--json")
            let decoded = try JSONDecoder().decode(WaitingPrompts.self, from: Data(listed.standardOutput.utf8))
            return decoded.prompts
        }
        func waitsForConsent(_ id: String) async throws -> [String]? {
            let ps = try await bgctl("ps", "--json")
            let decoded = try JSONDecoder().decode(ListedApps.self, from: Data(ps.standardOutput.utf8))
            return decoded.apps.first { $0.id.rawValue == id }?.waitsForConsent
        }

        // Opened, the recorder asks for its location, always: the desktop shows the question.
        _ = try running.request(.open(OpenApp(bundle: BundleID(Self.recorder))))
        let shown = try #require(
            await server.waitForNotification {
                $0.hints[DesktopPromptHint.key] != nil && $0.body.contains("bgctl answer")
            },
            "\(running.daemon.log.suffix(3000))")
        #expect(shown.summary == "Allow “HikeRecorder” to use your location, even when you are not using it?")
        #expect(
            shown.actions == ["while-using", "Allow While Using App", "always", "Always Allow", "deny", "Don't Allow"])
        #expect(shown.timeout == 0, "a question does not expire")
        let prompt = try #require(try await waiting().first { $0.bundle.rawValue == Self.recorder })
        #expect(shown.body.hasPrefix(try #require(prompt.usage)), "its usage string: \(shown.body)")
        #expect(shown.body.contains("bgctl answer \(prompt.id) while-using|always|deny"))
        #expect(try await waitsForConsent(Self.recorder) == ["location"])
        let table = try await bgctl("ps")
        #expect(table.standardOutput.contains("waits for consent: location"), "\(table)")

        // Any client of the bus can emit the server's signal: a forged "Always Allow" grants nothing.
        let forged = try await BusTool.run(
            DBusPeerProcess.python,
            [
                "-c",
                """
                import dbus, sys
                bus = dbus.bus.BusConnection(sys.argv[1])
                signal = dbus.lowlevel.SignalMessage(sys.argv[2], "org.freedesktop.Notifications", "ActionInvoked")
                signal.append(dbus.UInt32(int(sys.argv[3])), "always")
                bus.send_message(signal)
                bus.flush()
                """,
                bus.address, NotificationServerPeer.path, "\(shown.id)",
            ])
        #expect(forged.status == 0, "\(forged.output)")
        #expect(
            await waitUntil { running.daemon.log.contains("ActionInvoked from :") },
            "\(running.daemon.log.suffix(2000))")
        #expect(try await waiting().contains { $0.id == prompt.id }, "a forged press answered the prompt")
        #expect(!running.appLog(Self.recorder).contains("location authorized: always"))

        // The person presses "Always Allow": the grant is made and the recorder hears it.
        try await server.invokeAction(id: shown.id, key: "always")
        #expect(
            await waitUntil { running.appLog(Self.recorder).contains("location authorized: always") },
            "\(running.appLog(Self.recorder)) \(running.daemon.log.suffix(2000))")
        #expect(try await waiting().isEmpty)
        #expect(try await waitsForConsent(Self.recorder) == nil)
        // Resident, it would stay on screen: the daemon closes it, answered.
        #expect(
            await server.peer.waitForRecord("CloseNotification") { $0["id"]?.int == Int(shown.id) } != nil,
            "the answered prompt stayed: \(server.records())")
        let permissions = try await bgctl("permissions", Self.recorder, "--json")
        #expect(permissions.standardOutput.contains("\"always\""), "\(permissions)")
        // And records: a position reaches its track.
        let at = try await bgctl("simulate", "location", "--at", "46.051,14.5028,294.5")
        #expect(at.status == 0, "\(at)")
        let track = running.dataDirectory(Self.recorder) + "/track.log"
        #expect(
            await waitUntil { SimulatedLocationTests.trackLog(track).count == 1 }, "\(running.appLog(Self.recorder))")

        // A prompt answered at the terminal is taken off the desktop.
        _ = try running.request(.open(OpenApp(bundle: BundleID(Self.alerts))))
        var asked: ConsentPrompt?
        #expect(
            try await waitUntil {
                asked = try await waiting().first { $0.bundle.rawValue == Self.alerts && $0.service == .location }
                return asked != nil
            })
        let question = try #require(asked)
        let alert = try #require(
            await server.waitForNotification { $0.hints[DesktopPromptHint.key]?.int == question.id },
            "\(running.daemon.log.suffix(2000))")
        #expect(alert.summary.contains("“RegionAlerts”"))
        let answered = try await bgctl("answer", String(question.id), "deny")
        #expect(answered.status == 0, "\(answered)")
        #expect(
            await server.peer.waitForRecord("CloseNotification") { $0["id"]?.int == Int(alert.id) } != nil,
            "the answered prompt's notification was not closed: \(server.records())")
    }
}

private struct WaitingPrompts: Decodable { let prompts: [ConsentPrompt] }
private struct ListedApps: Decodable { let apps: [AppInfo] }

/// The hint that marks a permission prompt's notification.
enum DesktopPromptHint {
    static let key = "x-backgrounder-prompt"
}
