public import BackgrounderCore

/// `PROMPTS`: the requests waiting for a person's answer (the reply to a person's `PROMPTS`).
public struct ConsentPromptList: Sendable, Hashable, Codable {
    /// Oldest first.
    public var prompts: [ConsentPrompt]

    /// Creates a list.
    public init(prompts: [ConsentPrompt]) {
        self.prompts = prompts
    }
}

/// `ANSWER`: a person answers a prompt (`bgctl answer ID CHOICE`), as tapping a choice in
/// iOS's permission alert.
public struct ConsentAnswer: Sendable, Hashable, Codable {
    /// The prompt's number, from `PROMPTS`.
    public var prompt: Int
    /// One of the prompt's `choices`.
    public var choice: String

    /// Creates an answer.
    public init(prompt: Int, choice: String) {
        self.prompt = prompt
        self.choice = choice
    }
}
