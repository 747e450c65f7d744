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

/// `MEDIA_LIBRARY`: the reply to an app's `MEDIA_LIBRARY_AUTHORIZATION`
/// (`MPMediaLibrary.requestAuthorization`): what a person decided, and where the music is
/// once they allowed it. Not decided yet, the person is asked (`bgctl prompts`).
public struct MediaLibraryStatus: Sendable, Hashable, Codable {
    /// The app's grant.
    public var status: MediaLibraryAuthorization
    /// The person's music folder, shared with the app read-only, when granted and present.
    public var folder: String?
    /// Why there is no folder although access is granted (the daemon has no music folder).
    public var note: String?

    /// Creates a status.
    public init(status: MediaLibraryAuthorization, folder: String? = nil, note: String? = nil) {
        self.status = status
        self.folder = folder
        self.note = note
    }
}
