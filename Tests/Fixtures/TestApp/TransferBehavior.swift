import BackgroundKit
import Foundation

/// The background-transfer behaviours, all in the session `org.test.transfers`:
/// `transfer-download` (at a person's launch, a download task for each of the
/// `TestAppTransferURLs`), `transfer-download-exit` (the same, then exits: a terminated app),
/// `transfer-download-exit-on-go` (the same, deaf until DATA/go appears, then exits),
/// and `transfer-upload` (writes `TestAppUploadBytes` bytes to DATA/upload.bin and uploads
/// it to each URL). On every launch or wake it recreates the session when the daemon's event
/// arrives, moves each download to DATA/downloads/ID, and prints what the delegate heard.
@MainActor
final class TransferBehavior: URLSessionDownloadDelegate {
    static let sessionIdentifier = "org.test.transfers"

    private struct Keys: Decodable {
        var TestAppTransferURLs: [String]?
        var TestAppUploadBytes: Int?
    }

    private let behavior: String
    private let keys: Keys
    private var session: URLSession?
    private var completionHandler: (@MainActor () -> Void)?

    init(_ behavior: String) {
        self.behavior = behavior
        keys =
            (try? PropertyListDecoder().decode(Keys.self, from: Data(contentsOf: URL(fileURLWithPath: "Info.plist"))))
            ?? Keys()
    }

    private var dataDirectory: String { Application.dataDirectory ?? FileManager.default.currentDirectoryPath }

    /// A person opened the app: the behaviour's transfers.
    func launched(_ application: Application) {
        guard application.launchReason == .user else { return }
        let urls = (keys.TestAppTransferURLs ?? []).compactMap(URL.init(string:))
        let session = attachedSession()
        switch behavior {
        case "transfer-download", "transfer-download-exit":
            for url in urls { report(session.downloadTask(with: url)) }
            if behavior == "transfer-download-exit" {
                say("exiting")
                exit(0)
            }
        case "transfer-download-exit-on-go":
            // Holds the main actor, so it hears nothing of its download, until the test
            // writes DATA/go; then it ends without having handled what finished meanwhile.
            for url in urls { report(session.downloadTask(with: url)) }
            say("waiting for go")
            while !FileManager.default.fileExists(atPath: dataDirectory + "/go") { usleep(50_000) }
            say("exiting")
            exit(0)
        case "transfer-upload":
            let file = URL(fileURLWithPath: dataDirectory + "/upload.bin")
            do {
                try Data(repeating: 0x61, count: keys.TestAppUploadBytes ?? 0).write(to: file)
            } catch {
                say("cannot write \(file.path): \(error)")
                return
            }
            for url in urls { report(session.uploadTask(with: URLRequest(url: url), fromFile: file)) }
        default:
            say("unknown transfer behavior \(behavior)")
        }
    }

    /// The daemon's event: the session is (re)created, and the handler kept until the delegate
    /// hears the last finished transfer.
    func handleEvents(forBackgroundURLSession identifier: String, completionHandler: @escaping @MainActor () -> Void) {
        say("handle events \(identifier)")
        self.completionHandler = completionHandler
        _ = attachedSession()
    }

    private func attachedSession() -> URLSession {
        if let session { return session }
        let configuration = URLSessionConfiguration.background(withIdentifier: Self.sessionIdentifier)
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        self.session = session
        say("session \(Self.sessionIdentifier) created")
        return session
    }

    private func report(_ task: URLSessionTask) {
        task.resume()
        if task.taskIdentifier == 0 {
            say("transfer refused: \(task.error?.localizedDescription ?? "no reason")")
        } else {
            say("transfer \(task.taskIdentifier) created")
        }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let directory = dataDirectory + "/downloads"
        let destination = directory + "/\(downloadTask.taskIdentifier)"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try? FileManager.default.removeItem(atPath: destination)
            try FileManager.default.moveItem(atPath: location.path, toPath: destination)
            say("downloaded \(downloadTask.taskIdentifier) to \(destination)")
        } catch {
            say("cannot move \(location.path): \(error)")
        }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        say("progress \(downloadTask.taskIdentifier) \(totalBytesWritten)/\(totalBytesExpectedToWrite)")
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        say("progress \(task.taskIdentifier) \(totalBytesSent)/\(totalBytesExpectedToSend)")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        // URLError's number (-999 cancelled, -1001 timed out, …), as iOS logs it.
        let code = error.map { ($0 as? URLError).map { "\($0.code.rawValue)" } ?? "\($0)" } ?? "none"

        say("completed \(task.taskIdentifier) status \(status) error \(code)")
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        say("finished events \(session.configuration.identifier ?? "")")
        completionHandler?()
        completionHandler = nil
    }
}
