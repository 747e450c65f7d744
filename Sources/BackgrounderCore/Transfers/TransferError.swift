// Kept in Core (not Protocol) so the pure failure rules (``TransferFailure``) can produce it;
// Protocol's types name it through their public import of Core, so the wire is unchanged.

/// Why a transfer failed, as an `NSURLError` code and a sentence for people.
public struct TransferError: Sendable, Hashable, Codable, Error, CustomStringConvertible {
    /// What went wrong, named as `URLError.Code`.
    public enum Code: String, Sendable, Hashable, Codable, CaseIterable {
        case cancelled, badURL, unsupportedURL, timedOut, cannotConnectToHost, networkConnectionLost
        case cannotFindHost, httpTooManyRedirects, badServerResponse, cannotCreateFile, cannotWriteToFile,
            cannotMoveFile,
            cannotOpenFile
        case noPermissionsToReadFile, dataLengthExceedsMaximum, secureConnectionFailed, unknown
    }

    /// The code.
    public var code: Code
    /// What happened, naming the URL or file.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
