import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Prompts: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List what apps asked for that waits for your answer (location, microphone, notifications, music).",
        discussion: """
            As iOS's permission alerts: an app that asks for a service nothing was decided for \
            waits here, with its name and its reason (its Info.plist's usage description), and \
            stays not determined until you answer with bgctl answer. An app you denied is not \
            asked again; bgctl authorize changes a decision at any time.

            Examples:
              bgctl prompts
              bgctl answer 1 always
            """
    )
    @OptionGroup var options: CommonOptions

    func run() throws {
        guard case .prompts(let list) = try options.request(.prompts) else { throw Failure.unexpectedReply }
        if options.json { return try options.printJSON("prompts", list.prompts) }
        guard !list.prompts.isEmpty else {
            print("no app waits for an answer")
            return
        }
        for prompt in list.prompts {
            let reason = prompt.usage.map { ": \"\($0)\"" } ?? ""
            print(
                "\(prompt.id)  \(prompt.app) (\(prompt.bundle)) asks for \(prompt.service.rawValue) (\(prompt.asks))\(reason)"
                    .escapedForTerminal)
            print("   bgctl answer \(prompt.id) \(prompt.choices.joined(separator: "|"))")
        }
    }
}

struct Answer: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Answer an app's question: allow or deny what it asked for.",
        discussion: """
            ID is the prompt's number in bgctl prompts. CHOICE is one of its choices: for \
            location while-using, always (when the app asked for it) or deny; for the \
            microphone and notifications allow or deny. The app hears the change at once.

            Examples:
              bgctl answer 1 always
              bgctl answer 2 deny
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: "The prompt's number, from bgctl prompts.") var id: Int
    @Argument(
        help: "while-using, always, allow or deny.", completion: .list(["while-using", "always", "allow", "deny"]))
    var choice: String

    func run() throws {
        try report(options.request(.answer(ConsentAnswer(prompt: id, choice: choice))), options: options)
    }
}
