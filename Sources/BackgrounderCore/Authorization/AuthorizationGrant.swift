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
    ///   - level: For location `always`, `when-in-use` or `never`; for the microphone
    ///     and notifications `granted` (or empty) or `denied`. Case does not matter.
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
        case .microphone:
            guard let level = MicrophoneAuthorization(grant: level) else {
                throw AuthorizationGrantProblem(
                    .level,
                    "'\(level)' is not a microphone grant (use \(MicrophoneAuthorization.grantWords.joined(separator: " or ")))"
                )
            }
            self = .microphone(level)
        case .notifications:
            guard let level = NotificationAuthorization(grant: level) else {
                throw AuthorizationGrantProblem(
                    .level,
                    "'\(level)' is not a notifications grant (use \(NotificationAuthorization.grantWords.joined(separator: " or ")))"
                )
            }
            self = .notifications(level)
        case .mediaLibrary:
            guard let level = MediaLibraryAuthorization(grant: level) else {
                throw AuthorizationGrantProblem(
                    .level,
                    "'\(level)' is not a media-library grant (use \(MediaLibraryAuthorization.grantWords.joined(separator: " or ")))"
                )
            }
            self = .mediaLibrary(level)
        case nil:
            let known = AuthorizationService.allCases.map(\.rawValue).joined(separator: ", ")
            throw AuthorizationGrantProblem(.service, "unknown service '\(service)' (known: \(known))")
        }
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
