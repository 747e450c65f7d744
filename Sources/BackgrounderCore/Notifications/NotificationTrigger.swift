/// When a notification is delivered, as `UNNotificationTrigger`'s subclasses. A request
/// without a trigger is delivered at once.
public enum NotificationTrigger: Sendable, Hashable, Codable {
    /// `seconds` after it is added (`UNTimeIntervalNotificationTrigger`); repeating, every
    /// `seconds`, which iOS allows only from 60 s.
    case timeInterval(seconds: Double, repeats: Bool)
    /// The next moment matching the components in the device's time zone
    /// (`UNCalendarNotificationTrigger`); repeating, every such moment.
    case calendar(NotificationDateMatch, repeats: Bool)
    /// Entering or leaving a region, as its `notifyOnEntry`/`notifyOnExit` say
    /// (`UNLocationNotificationTrigger`); repeating, every time.
    case location(CircularRegion, repeats: Bool)

    /// Whether the trigger fires again after it fired.
    public var repeats: Bool {
        switch self {
        case .timeInterval(_, let repeats), .calendar(_, let repeats), .location(_, let repeats): repeats
        }
    }

    private enum CodingKeys: String, CodingKey {
        case type, seconds, repeats, dateComponents, region
    }

    private enum Kind: String, Codable {
        case timeInterval, calendar, location
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let repeats = try container.decodeIfPresent(Bool.self, forKey: .repeats) ?? false
        switch try container.decode(Kind.self, forKey: .type) {
        case .timeInterval:
            self = .timeInterval(seconds: try container.decode(Double.self, forKey: .seconds), repeats: repeats)
        case .calendar:
            self = .calendar(
                try container.decode(NotificationDateMatch.self, forKey: .dateComponents), repeats: repeats)
        case .location:
            self = .location(try container.decode(CircularRegion.self, forKey: .region), repeats: repeats)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .timeInterval(let seconds, _):
            try container.encode(Kind.timeInterval, forKey: .type)
            try container.encode(seconds, forKey: .seconds)
        case .calendar(let match, _):
            try container.encode(Kind.calendar, forKey: .type)
            try container.encode(match, forKey: .dateComponents)
        case .location(let region, _):
            try container.encode(Kind.location, forKey: .type)
            try container.encode(region, forKey: .region)
        }
        try container.encode(repeats, forKey: .repeats)
    }
}
