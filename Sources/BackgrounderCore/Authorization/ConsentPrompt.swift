/// An app asked for something only a person may give (location, the microphone,
/// notifications), and waits for the person's answer: iOS's permission alert, as `bgctl
/// prompts` lists it and `bgctl answer ID CHOICE` answers it. Until answered, the app's
/// authorization stays not determined.
public struct ConsentPrompt: Sendable, Hashable, Codable {
    /// The prompt's number, for `bgctl answer`.
    public var id: Int
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// The app's name, as a person knows it.
    public var app: String
    /// What it asks for.
    public var service: AuthorizationService
    /// How much: `always` or `when-in-use` for location, `granted` for the others.
    public var asks: String {
        didSet { choices = Self.choices(service, asks) }
    }
    /// Why, in the app's words (its Info.plist's usage description), when it gave them.
    public var usage: String?
    /// When it asked, in seconds since 1970.
    public var askedAt: Double
    /// The answers a person may give, as `bgctl answer` takes them: for location, iOS's
    /// "Allow While Using", "Always Allow" (when the app asked for it) and "Don't Allow"; for
    /// the others, "Allow" and "Don't Allow".
    public private(set) var choices: [String]

    /// Creates a prompt.
    public init(
        id: Int, bundle: BundleID, app: String, service: AuthorizationService, asks: String, usage: String?,
        askedAt: Double
    ) {
        self.id = id
        self.bundle = bundle
        self.app = app
        self.service = service
        self.asks = asks
        self.usage = usage
        self.askedAt = askedAt
        choices = Self.choices(service, asks)
    }

    private static func choices(_ service: AuthorizationService, _ asks: String) -> [String] {
        switch service {
        case .location: asks == "always" ? ["while-using", "always", "deny"] : ["while-using", "deny"]
        case .microphone, .notifications, .mediaLibrary: ["allow", "deny"]
        }
    }

    /// The question, as iOS's alert asks it: `Allow “HikeRecorder” to use your location?`.
    public var question: String {
        switch (service, asks) {
        case (.location, "always"): "Allow “\(app)” to use your location, even when you are not using it?"
        case (.location, _): "Allow “\(app)” to use your location?"
        case (.microphone, _): "“\(app)” would like to access the microphone"
        case (.notifications, _): "“\(app)” would like to send you notifications"
        case (.mediaLibrary, _): "“\(app)” would like to access your music library"
        }
    }

    /// What a button for a choice says, as iOS's alert labels it.
    public static func label(of choice: String) -> String {
        switch choice {
        case "while-using": "Allow While Using App"
        case "always": "Always Allow"
        case "allow": "Allow"
        case "deny": "Don't Allow"
        default: choice
        }
    }

    /// The grant a choice makes, or `nil` for a choice this prompt does not offer.
    public func grant(for choice: String) -> AuthorizationGrant? {
        guard choices.contains(choice) else { return nil }
        switch (service, choice) {
        case (.location, "always"): return .location(.always)
        case (.location, "while-using"): return .location(.whenInUse)
        case (.location, _): return .location(.denied)
        case (.microphone, "allow"): return .microphone(.granted)
        case (.microphone, _): return .microphone(.denied)
        case (.notifications, "allow"): return .notifications(.granted)
        case (.notifications, _): return .notifications(.denied)
        case (.mediaLibrary, "allow"): return .mediaLibrary(.granted)
        case (.mediaLibrary, _): return .mediaLibrary(.denied)
        }
    }
}

/// The prompts waiting for a person: one per app and service (asking again updates it, as
/// iOS shows one alert), numbered in the order asked.
public struct ConsentPrompts: Sendable {
    private var prompts: [Int: ConsentPrompt] = [:]
    private var nextID = 1

    public init() {}

    /// Every waiting prompt, oldest first.
    public var waiting: [ConsentPrompt] { prompts.values.sorted { $0.id < $1.id } }

    /// Records an app's request; the prompt it waits on, and whether it is new.
    public mutating func ask(
        _ bundle: BundleID, app: String, service: AuthorizationService, asks: String, usage: String?, at time: Double
    ) -> (prompt: ConsentPrompt, isNew: Bool) {
        if var existing = prompts.values.first(where: { $0.bundle == bundle && $0.service == service }) {
            // An app that asked for when-in-use and now asks for always waits on the larger ask.
            if asks == "always" { existing.asks = asks }
            existing.usage = usage ?? existing.usage
            prompts[existing.id] = existing
            return (existing, false)
        }
        let prompt = ConsentPrompt(
            id: nextID, bundle: bundle, app: app, service: service, asks: asks, usage: usage, askedAt: time)
        nextID += 1
        prompts[prompt.id] = prompt
        return (prompt, true)
    }

    /// The prompt with this number, if it waits.
    public func prompt(_ id: Int) -> ConsentPrompt? { prompts[id] }

    /// A person decided the service for the app (an answer, or `bgctl authorize`): its prompt goes.
    /// - Returns: The numbers of the prompts that went (one at most).
    @discardableResult
    public mutating func decided(_ bundle: BundleID, _ service: AuthorizationService) -> [Int] {
        remove { $0.bundle == bundle && $0.service == service }
    }

    /// Drops an app's prompts (its identity changed).
    /// - Returns: The numbers of the prompts that went.
    @discardableResult
    public mutating func drop(_ bundle: BundleID) -> [Int] {
        remove { $0.bundle == bundle }
    }

    private mutating func remove(where matches: (ConsentPrompt) -> Bool) -> [Int] {
        let gone = prompts.values.filter(matches).map(\.id).sorted()
        for id in gone { prompts[id] = nil }
        return gone
    }
}
