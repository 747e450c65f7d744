import BackgrounderCore
import Testing

@Suite("Consent prompts", .timeLimit(.minutes(1)))
struct ConsentPromptTests {
    @Test("one prompt per app and service; asking for always widens it; deciding or dropping says which went")
    func table() {
        var prompts = ConsentPrompts()
        let (first, isNew) = prompts.ask(
            "a.recorder", app: "Recorder", service: .location, asks: "when-in-use", usage: "Tracks", at: 1)
        #expect(isNew && first.id == 1 && first.choices == ["while-using", "deny"])
        let (again, againNew) = prompts.ask(
            "a.recorder", app: "Recorder", service: .location, asks: "always", usage: nil, at: 2)
        #expect(!againNew && again.id == 1 && again.choices == ["while-using", "always", "deny"])
        #expect(again.usage == "Tracks", "a later ask without a reason keeps the first's")
        let (mic, _) = prompts.ask(
            "a.recorder", app: "Recorder", service: .microphone, asks: "granted", usage: nil, at: 3)
        let (other, _) = prompts.ask(
            "b.alerts", app: "Alerts", service: .notifications, asks: "granted", usage: nil, at: 4)
        #expect(prompts.waiting.map(\.id) == [1, mic.id, other.id])

        #expect(prompts.decided("a.recorder", .location) == [1])
        #expect(prompts.decided("a.recorder", .location) == [])
        #expect(prompts.drop("a.recorder") == [mic.id])
        #expect(prompts.waiting.map(\.id) == [other.id])
    }

    @Test("the question and the buttons read as iOS's alert, and each choice makes its grant")
    func wording() {
        let always = ConsentPrompt(
            id: 3, bundle: "a.recorder", app: "HikeRecorder", service: .location, asks: "always", usage: nil,
            askedAt: 0)
        #expect(always.question == "Allow “HikeRecorder” to use your location, even when you are not using it?")
        #expect(
            always.choices.map(ConsentPrompt.label(of:)) == ["Allow While Using App", "Always Allow", "Don't Allow"])
        #expect(always.grant(for: "always") == .location(.always))
        #expect(always.grant(for: "while-using") == .location(.whenInUse))
        #expect(always.grant(for: "deny") == .location(.denied))
        #expect(always.grant(for: "allow") == nil)
        let notifications = ConsentPrompt(
            id: 4, bundle: "b", app: "Alerts", service: .notifications, asks: "granted", usage: nil, askedAt: 0)
        #expect(notifications.question == "“Alerts” would like to send you notifications")
        #expect(notifications.choices.map(ConsentPrompt.label(of:)) == ["Allow", "Don't Allow"])
        #expect(notifications.grant(for: "allow") == .notifications(.granted))
    }
}
