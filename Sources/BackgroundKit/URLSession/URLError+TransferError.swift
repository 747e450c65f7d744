import BackgrounderCore
import BackgrounderProtocol
import Foundation

extension URLError {
    /// The daemon's reason as the `URLError` an iOS app sees: its code, and the daemon's
    /// sentence as the localized description.
    init(transfer error: TransferError, url: String?) {
        var info: [String: Any] = [NSLocalizedDescriptionKey: error.message]
        if let url = url.flatMap(URL.init(string:)) { info[NSURLErrorFailingURLErrorKey] = url }
        self.init(Self.code(for: error.code), userInfo: info)
    }

    /// Each of the daemon's codes is the `URLError.Code` of the same name.
    static func code(for code: TransferError.Code) -> URLError.Code {
        switch code {
        case .cancelled: .cancelled
        case .badURL: .badURL
        case .unsupportedURL: .unsupportedURL
        case .timedOut: .timedOut
        case .cannotConnectToHost: .cannotConnectToHost
        case .networkConnectionLost: .networkConnectionLost
        case .httpTooManyRedirects: .httpTooManyRedirects
        case .badServerResponse: .badServerResponse
        case .cannotCreateFile: .cannotCreateFile
        case .cannotWriteToFile: .cannotWriteToFile
        case .cannotOpenFile: .cannotOpenFile
        case .cannotMoveFile: .cannotMoveFile
        case .cannotFindHost: .cannotFindHost
        case .noPermissionsToReadFile: .noPermissionsToReadFile
        case .dataLengthExceedsMaximum: .dataLengthExceedsMaximum
        case .secureConnectionFailed: .secureConnectionFailed
        case .unknown: .unknown
        }
    }
}
