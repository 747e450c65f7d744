public import Foundation

/// `BGAppRefreshTaskRequest` or `BGProcessingTaskRequest`.
public enum BackgroundTaskKind: String, Sendable, Hashable, Codable {
    /// A short refresh (30 s window), budgeted like background fetch.
    case appRefresh
    /// Longer work that runs only while its conditions hold and the device is idle.
    case processing
}

/// A pending task request, as submitted with `BGTaskScheduler.submit`; persisted as JSON.
public struct BackgroundTaskRequest: Sendable, Hashable, Codable {
    /// Longest accepted task identifier, in bytes.
    public static let maximumIdentifierLength = 256

    /// The task identifier (listed in `BGTaskSchedulerPermittedIdentifiers`).
    public var identifier: String
    /// App refresh or processing.
    public var kind: BackgroundTaskKind
    /// Not before this moment. `nil`, or a moment already past, means as soon as possible.
    public var earliestBeginDate: Date?
    /// Processing only: run only on external power; expired if power goes.
    public var requiresExternalPower: Bool
    /// Processing only: run only with a network; expired if it goes.
    public var requiresNetworkConnectivity: Bool

    /// A request.
    public init(
        identifier: String, kind: BackgroundTaskKind, earliestBeginDate: Date? = nil,
        requiresExternalPower: Bool = false, requiresNetworkConnectivity: Bool = false
    ) {
        self.identifier = identifier
        self.kind = kind
        self.earliestBeginDate = earliestBeginDate
        self.requiresExternalPower = requiresExternalPower
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
    }

    /// Why the request cannot be accepted, naming the field, or `nil` when it can.
    ///
    /// Refused: an empty or overlong identifier; an `earliestBeginDate` that is not a finite
    /// date, or further ahead than ``SchedulingPolicy/maximumEarliestBeginDelay``; conditions on
    /// an app-refresh request (iOS has them only on processing requests). A date in the past is
    /// accepted and means as soon as possible.
    public func problem(now: Date, policy: SchedulingPolicy) -> String? {
        if identifier.isEmpty { return "identifier must not be empty" }
        if identifier.utf8.count > Self.maximumIdentifierLength {
            return "identifier is longer than \(Self.maximumIdentifierLength) bytes"
        }
        if let date = earliestBeginDate {
            let ahead = date.timeIntervalSince(now)
            guard date.timeIntervalSinceReferenceDate.isFinite, ahead.isFinite else {
                return "earliestBeginDate must be a finite date"
            }
            let most = policy.maximumEarliestBeginDelay.seconds
            if ahead > most {
                return
                    "earliestBeginDate is \(Self.days(ahead)) ahead, further than the most a request may wait (\(Self.days(most)))"
            }
        }
        if kind == .appRefresh && (requiresExternalPower || requiresNetworkConnectivity) {
            return
                "\(requiresExternalPower ? "requiresExternalPower" : "requiresNetworkConnectivity") is for processing tasks, not app refresh"
        }
        return nil
    }

    private static func days(_ seconds: TimeInterval) -> String {
        seconds >= 86_400 ? "\((seconds / 86_400 * 10).rounded() / 10) days" : "\(Int(seconds.rounded())) s"
    }
}
