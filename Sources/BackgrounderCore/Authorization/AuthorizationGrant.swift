/// A person's decision about one service for one app: what `bgctl authorize ID SERVICE LEVEL`
/// says, typed by service. Only a person grants; the daemon never does by itself.
public enum AuthorizationGrant: Sendable, Hashable {
    /// Location: `always`, `whenInUse` or `denied` (`notDetermined` is not a decision, and
    /// the daemon refuses it).
    case location(LocationAuthorization)
    /// The microphone: `granted` or `denied` (`notDetermined` is refused likewise).
    case microphone(MicrophoneAuthorization)
    /// Notifications: `granted` or `denied` (`notDetermined` is refused likewise).
    case notifications(NotificationAuthorization)
    /// The music library: `granted` or `denied` (`notDetermined` is refused likewise).
    case mediaLibrary(MediaLibraryAuthorization)

    /// The service it is about.
    public var service: AuthorizationService {
        switch self {
        case .location: .location
        case .microphone: .microphone
        case .notifications: .notifications
        case .mediaLibrary: .mediaLibrary
        }
    }

    /// The level as a person types it (`always`, `when-in-use`, `never`; `granted`, `denied`).
    public var level: String {
        switch self {
        case .location(let level): level.grantWord
        case .microphone(let level): level.grantWord
        case .notifications(let level): level.grantWord
        case .mediaLibrary(let level): level.grantWord
        }
    }

    /// Parses what a person types.
    /// - Parameters:
    ///   - service: `location`, `microphone`, `notifications` or `media-library`.
    ///   - level: For location `always`, `when-in-use` or `never`; for the others
    ///     `granted` (or empty) or `denied`. Case does not matter.
    /// - Throws: ``AuthorizationGrantProblem`` naming the word at fault and the words allowed.
    public init(service: String, level: String) throws(AuthorizationGrantProblem) {
        switch AuthorizationService(rawValue: service.lowercased()) {
        case .location:
            guard !level.isEmpty else {
                throw AuthorizationGrantProblem(
                    .level,
                    "location needs a level: \(LocationAuthorization.grantWords.joined(separator: ", ")) (for example: location always)"
                )
            }
            guard let level = LocationAuthorization(grant: level) else {
                throw AuthorizationGrantProblem(
                    .level,
                    "'\(level)' is not a location grant (use \(LocationAuthorization.grantWords.joined(separator: ", ")))"
                )
            }
            self = .location(level)
        case .microphone: self = .microphone(try Self.decision(level, for: .microphone))
        case .notifications: self = .notifications(try Self.decision(level, for: .notifications))
        case .mediaLibrary: self = .mediaLibrary(try Self.decision(level, for: .mediaLibrary))
        case nil:
            let known = AuthorizationService.allCases.map(\.rawValue).joined(separator: ", ")
            throw AuthorizationGrantProblem(.service, "unknown service '\(service)' (known: \(known))")
        }
    }
}

extension AuthorizationGrant {
    /// A yes or no for one of the services without levels, as a person typed it.
    private static func decision(_ level: String, for service: AuthorizationService)
        throws(AuthorizationGrantProblem) -> AuthorizationDecision
    {
        guard let decision = AuthorizationDecision(grant: level) else {
            throw AuthorizationGrantProblem(
                .level,
                "'\(level)' is not a \(service.rawValue) grant (use \(AuthorizationDecision.grantWords.joined(separator: " or ")))"
            )
        }
        return decision
    }
}

/// Why words could not be read as an ``AuthorizationGrant``.
public struct AuthorizationGrantProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The word at fault.
    public enum Field: String, Sendable, Hashable {
        /// The service.
        case service
        /// The level.
        case level
    }

    /// The word at fault.
    public var field: Field
    /// What was wrong and what is allowed, for a person to read.
    public var description: String

    /// Creates a problem.
    public init(_ field: Field, _ description: String) {
        self.field = field
        self.description = description
    }
}
