import BackgrounderAppCore
package import BackgrounderCore
import BackgrounderProtocol
package import BackgrounderSystem

/// Permission prompts on the desktop: iOS's alert as a notification whose buttons are the
/// prompt's choices ("Allow While Using App", "Don't Allow"...). Pressing one is the person's
/// answer, carried out as `bgctl answer` is. Only the notification server's own signal counts,
/// as for every notification, and only from a server that is no app's process: where apps
/// reach the session bus, one could own the server's name, receive its own prompt and press
/// "Allow". Dismissed,
/// the prompt still waits in `bgctl prompts`. Without a server the core has logged the
/// `bgctl answer` line already.
extension DesktopNotificationPresenter {
    /// What identifies a prompt's notification to the server, beside its buttons.
    package static let promptHint = "x-backgrounder-prompt"

    /// Shows a prompt, or shows it again in place of the one shown (the app now asks for more).
    package func presentPrompt(_ prompt: ConsentPrompt) async {
        let replaces = shownPrompts.withLock { $0[prompt.id] } ?? 0
        let body = [prompt.usage, "Or: bgctl answer \(prompt.id) \(prompt.choices.joined(separator: "|"))"]
            .compactMap { $0 }.joined(separator: "\n")
        let actions = prompt.choices.flatMap { [$0, ConsentPrompt.label(of: $0)] }
        let hints: [String: DBusValue] = [
            // A question waits for its answer: kept on screen and in the list until then.
            "urgency": .byte(2),
            "resident": .boolean(true),
            "x-backgrounder-bundle": .string(prompt.bundle.rawValue),
            Self.promptHint: .int32(Int32(clamping: prompt.id)),
        ]
        let arguments: [DBusValue] = [
            .string("Backgrounder"), .uint32(replaces), .string("dialog-question"), .string(prompt.question),
            .string(body), .strings(actions), .vardict(hints), .int32(0),
        ]
        guard case .success(let values) = await call("Notify", arguments),
            let id = values.first?.integerValue.flatMap(UInt32.init(exactly:))
        else { return }
        shownPrompts.withLock { $0[prompt.id] = id }
    }

    /// Takes a prompt off the desktop: it was answered some other way, or its app went.
    package func withdrawPrompt(_ prompt: Int) async {
        guard let id = shownPrompts.withLock({ $0.removeValue(forKey: prompt) }) else { return }
        _ = await call("CloseNotification", [.uint32(id)])
    }

    /// On the bus thread: a button pressed on a prompt's notification is the person's answer,
    /// when the server that says so is no app's process.
    /// - Returns: Whether the notification was a prompt.
    package func promptAnswered(_ id: UInt32, _ action: String, from sender: String?, on connection: BusConnection)
        -> Bool
    {
        guard let prompt = shownPrompts.withLock({ $0.first { $0.value == id }?.key }) else { return false }
        // A click on the body is no answer: the prompt waits on, shown.
        guard action != Self.defaultAction else { return true }
        bus.owner(of: sender, on: connection) { [self] owner in
            if let refusal = owner.refusalToActForPerson {
                logger.warning("prompt \(prompt): \(action) from the notification server refused: \(refusal)")
                return
            }
            // The server may close it first (as dismissed); the answer stands all the same.
            _ = takePrompt(shownAs: id)
            answerStream.yield(ConsentAnswer(prompt: prompt, choice: action))
            // A resident notification stays after a press: it is answered, so it goes.
            connection.call(Self.destination, Self.path, Self.interface, "CloseNotification", [.uint32(id)]) { _ in }
        }
        return true
    }

    /// On the bus thread: a prompt's notification closed unanswered; it waits in `bgctl prompts`.
    package func promptClosed(_ id: UInt32) {
        _ = takePrompt(shownAs: id)
    }

    /// The prompt a notification stands for, no longer shown.
    private func takePrompt(shownAs id: UInt32) -> Int? {
        shownPrompts.withLock { state in
            guard let prompt = state.first(where: { $0.value == id })?.key else { return nil }
            state[prompt] = nil
            return prompt
        }
    }
}
