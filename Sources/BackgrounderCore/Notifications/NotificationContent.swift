/// What a notification says, as `UNNotificationContent`: the words a person reads, the sound,
/// and what the app gets back in the response.
public struct NotificationContent: Sendable, Hashable, Codable {
    /// The headline.
    public var title: String
    /// A second line under the title.
    public var subtitle: String
    /// The message.
    public var body: String
    /// A sound's name, `default` for the system's sound; absent for none.
    public var sound: String?
    /// Whatever the app wants back when the person acts on it.
    public var userInfo: [String: JSONValue]
    /// Notifications of one thread are grouped together.
    public var threadIdentifier: String

    /// The title, and the subtitle after a dash when there is one: the one line a desktop
    /// notification's summary and the log both show.
    public var heading: String { subtitle.isEmpty ? title : "\(title) — \(subtitle)" }

    /// Creates content.
    public init(
        title: String = "", subtitle: String = "", body: String = "", sound: String? = nil,
        userInfo: [String: JSONValue] = [:], threadIdentifier: String = ""
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sound = sound
        self.userInfo = userInfo
        self.threadIdentifier = threadIdentifier
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title) ?? ""
        subtitle = try container.decodeIfPresent(String.self, forKey: .subtitle) ?? ""
        body = try container.decodeIfPresent(String.self, forKey: .body) ?? ""
        sound = try container.decodeIfPresent(String.self, forKey: .sound)
        userInfo = try container.decodeIfPresent([String: JSONValue].self, forKey: .userInfo) ?? [:]
        threadIdentifier = try container.decodeIfPresent(String.self, forKey: .threadIdentifier) ?? ""
    }
}
