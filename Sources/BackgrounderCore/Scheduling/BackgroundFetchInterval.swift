/// How often an app would like to be woken for background fetch:
/// `UIApplication.setMinimumBackgroundFetchInterval(_:)`'s argument.
///
/// It is a wish, never a promise: ``FetchScheduler`` never fetches more often than the larger of
/// this and the policy's ``SchedulingPolicy/minimumFetchInterval``, and less often after empty
/// results or when the daily budget is spent.
///
/// Stored as JSON as `"minimum"`, `"never"` or a number of seconds.
public enum BackgroundFetchInterval: Sendable, Hashable, Codable {
    /// `UIApplication.backgroundFetchIntervalMinimum`: as often as the policy allows.
    case minimum
    /// `UIApplication.backgroundFetchIntervalNever` (the default): no background fetch.
    case never
    /// At most once in this many seconds (and never more often than the policy allows).
    case seconds(Double)

    /// Why the interval cannot be used (a number of seconds that is not finite or not
    /// positive), or `nil` when it can.
    public var problem: String? {
        if case .seconds(let seconds) = self, !(seconds.isFinite && seconds > 0) {
            return "the interval must be a positive number of seconds, not \(seconds)"
        }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let name = try? container.decode(String.self) {
            switch name {
            case "minimum": self = .minimum
            case "never": self = .never
            default:
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected \"minimum\", \"never\" or a number of seconds")
            }
        } else {
            self = .seconds(try container.decode(Double.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .minimum: try container.encode("minimum")
        case .never: try container.encode("never")
        case .seconds(let seconds): try container.encode(seconds)
        }
    }
}
