public import BackgrounderCore

/// A notification's sound, as `UNNotificationSound`.
public struct UNNotificationSound: Sendable, Hashable {
    /// The sound's name; `default` for the system's.
    public let name: String

    /// The system's sound.
    public static let `default` = UNNotificationSound(named: "default")

    /// A named sound.
    public init(named name: String) {
        self.name = name
    }
}

/// What a notification says, as `UNNotificationContent`: read-only here,
/// ``UNMutableNotificationContent`` to write it.
public class UNNotificationContent {
    var storage: NotificationContent

    init(_ storage: NotificationContent) {
        self.storage = storage
    }

    /// The headline.
    public var title: String { storage.title }
    /// A second line.
    public var subtitle: String { storage.subtitle }
    /// The message.
    public var body: String { storage.body }
    /// The sound; `nil` for none.
    public var sound: UNNotificationSound? { storage.sound.map(UNNotificationSound.init(named:)) }
    /// What the app gets back in the response.
    public var userInfo: [String: JSONValue] { storage.userInfo }
    /// Notifications of one thread are grouped.
    public var threadIdentifier: String { storage.threadIdentifier }
}

/// Content an app fills in, as `UNMutableNotificationContent`.
public final class UNMutableNotificationContent: UNNotificationContent {
    /// Empty content.
    public init() {
        super.init(NotificationContent())
    }

    public override var title: String {
        get { storage.title }
        set { storage.title = newValue }
    }
    public override var subtitle: String {
        get { storage.subtitle }
        set { storage.subtitle = newValue }
    }
    public override var body: String {
        get { storage.body }
        set { storage.body = newValue }
    }
    public override var sound: UNNotificationSound? {
        get { storage.sound.map(UNNotificationSound.init(named:)) }
        set { storage.sound = newValue?.name }
    }
    public override var userInfo: [String: JSONValue] {
        get { storage.userInfo }
        set { storage.userInfo = newValue }
    }
    public override var threadIdentifier: String {
        get { storage.threadIdentifier }
        set { storage.threadIdentifier = newValue }
    }
}
