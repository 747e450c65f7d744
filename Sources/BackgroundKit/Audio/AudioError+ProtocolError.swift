import BackgrounderProtocol

extension AudioError {
    /// The error the app gets when the daemon refuses an audio request, with the daemon's
    /// message.
    /// - Parameters:
    ///   - error: The daemon's refusal.
    ///   - request: What was asked, put before the message (`drain: ...`), if anything.
    init(_ error: ProtocolError, request: String? = nil) {
        self.init(Self.code(for: error.code), request.map { "\($0): \(error.message)" } ?? error.message)
    }

    /// The one table from the daemon's codes to the app's.
    static func code(for code: ProtocolError.Code) -> Code {
        switch code {
        case .badRequest: .badParam
        case .invalidState: .invalidState
        case .notAuthorized: .recordPermissionDenied
        case .limitReached: .resourceNotAvailable
        case .unavailable: .mediaServicesFailed
        // A stream number the daemon does not know is one it closed (or the app made up).
        case .notFound: .streamClosed
        case .notCheckedIn: .notConnected
        default: .unspecified
        }
    }
}
