import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Foundation

/// A prompt was asked (or asks for more), or is no longer waiting: what the desktop shows.
package enum ConsentEvent: Sendable {
    case asked(ConsentPrompt)
    case settled(Int)
}

/// Permission prompts: an app asks (location, the microphone, notifications), the core keeps
/// the question until a person answers (`bgctl prompts`, `bgctl answer`, or the desktop
/// notification's buttons), and the answer is a grant through the capability that owns the
/// service, as `bgctl authorize` is.
extension AppManager {
    /// Asks the person on an app's behalf; the app stays not determined until they answer.
    /// A capability calls this when an app asks for a service it has no decision for.
    /// - Parameters:
    ///   - identifier: The app.
    ///   - service: What it asks for.
    ///   - asks: How much (`always`, `when-in-use`, `granted`).
    ///   - usage: Its Info.plist's reason, shown with the question.
    package func askPerson(_ identifier: BundleID, for service: AuthorizationService, asks: String, usage: String?) {
        let name = manifest(of: identifier)?.name ?? identifier.rawValue
        let (prompt, isNew) = consent.ask(
            identifier, app: name, service: service, asks: asks, usage: usage, at: Date().timeIntervalSince1970)
        guard isNew || asks == "always" else { return }
        consentEventSink.yield(.asked(prompt))
        let reason = usage.map { " (\"\($0)\")" } ?? ""
        appLogger(identifier).notice(
            "asks for \(service.rawValue) (\(asks))\(reason); a person answers with `bgctl answer \(prompt.id) \(prompt.choices.joined(separator: "|"))`"
        )
    }

    /// Prompts that no longer wait: taken off the desktop.
    package func settled(_ prompts: [Int]) {
        for id in prompts { consentEventSink.yield(.settled(id)) }
    }

    /// `PROMPTS`: what waits for an answer.
    package func waitingPrompts() -> ConsentPromptList {
        ConsentPromptList(prompts: consent.waiting)
    }

    /// `ANSWER`: a person's answer to a prompt, granted through the service's capability.
    package func answer(_ answer: ConsentAnswer) throws(ProtocolError) -> Done {
        guard let prompt = consent.prompt(answer.prompt) else {
            throw ProtocolError(.notFound, "ANSWER: no prompt \(answer.prompt) waits (bgctl prompts lists them)")
        }
        guard let grant = prompt.grant(for: answer.choice) else {
            throw ProtocolError(
                .badRequest,
                "ANSWER: choice: '\(answer.choice)' is not one of prompt \(prompt.id)'s: \(prompt.choices.joined(separator: ", "))"
            )
        }
        return try authorize(Authorize(bundle: prompt.bundle, grant: grant))
    }
}
