import BackgroundKit
import Foundation
import SampleSupport

/// The app: opened by a person, it fetches the feed, hands each new episode to a background
/// download and exits; launched again when they are all finished, it files them in Episodes/.
@MainActor
final class PodcastDelegate: ApplicationDelegate, URLSessionDownloadDelegate {
    private let files = PodcastFiles.forApp()
    private var session: URLSession?
    private var completionHandler: (@MainActor () -> Void)?

    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("launched (\(reason.rawValue))")
        guard reason == .user else { return }
        Task {
            // The downloads are the system's now; nothing here needs to keep running.
            if await refresh() > 0 {
                say("exiting; backgrounderd downloads the episodes and launches the app when they are in")
            } else {
                say("exiting; nothing to download")
            }
            exit(0)
        }
    }

    func application(
        _ application: Application, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping @MainActor () -> Void
    ) {
        say("background session \(identifier): its downloads are finished")
        self.completionHandler = completionHandler
        _ = attachedSession()
    }

    /// The session, created once per process (which attaches it and delivers what finished).
    private func attachedSession() -> URLSession {
        if let session { return session }
        let session = URLSession(
            configuration: .background(withIdentifier: PodcastFiles.sessionIdentifier), delegate: self,
            delegateQueue: nil)
        self.session = session
        return session
    }

    /// Fetches the feed and starts a download for each episode neither in nor on its way.
    /// - Returns: How many downloads started.
    private func refresh() async -> Int {
        guard let text = try? String(contentsOfFile: files.feed, encoding: .utf8),
            let feed = URL(string: text.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            say("no feed yet: run `Podcasts subscribe URL` (\(files.feed))")
            return 0
        }
        let enclosures: [Enclosure]
        do {
            enclosures = try EnclosureParser.parse(try await FeedDownload.fetch(feed), base: feed)
        } catch {
            say("cannot read the feed: \(error)")
            return 0
        }
        let index: EpisodeIndex
        do {
            index = try EpisodeIndex.load(files.index)
        } catch {
            say("\(error)")
            return 0
        }
        let session = attachedSession()
        let onTheirWay = await withCheckedContinuation { continuation in
            session.getAllTasks { tasks in
                continuation.resume(returning: Set(tasks.compactMap { $0.originalRequest?.url?.absoluteString }))
            }
        }
        var started = 0
        for enclosure in enclosures where !index.contains(url: enclosure.url) && !onTheirWay.contains(enclosure.url) {
            guard let url = URL(string: enclosure.url) else { continue }
            let task = session.downloadTask(with: url)
            task.taskDescription = enclosure.title
            if let length = enclosure.length, length > 0 { task.countOfBytesClientExpectsToReceive = length }
            task.resume()
            if task.taskIdentifier == 0 {
                say("cannot download \(enclosure.url): \(task.error?.localizedDescription ?? "refused")")
            } else {
                say("downloading \"\(enclosure.title)\" (transfer \(task.taskIdentifier))")
                started += 1
            }
        }
        say("\(enclosures.count) episodes in the feed, \(started) new downloads, \(onTheirWay.count) on their way")
        return started
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        let address = downloadTask.originalRequest?.url?.absoluteString ?? location.lastPathComponent
        let status = (downloadTask.response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            // The body is the server's error page; the system deletes it after this call.
            say("\(address): HTTP \(status), not kept")
            return
        }
        do {
            var index = try EpisodeIndex.load(files.index)
            try FileManager.default.createDirectory(atPath: files.episodes, withIntermediateDirectories: true)
            let taken = Set((try? FileManager.default.contentsOfDirectory(atPath: files.episodes)) ?? [])
            let name = EpisodeIndex.fileName(for: address, taken: taken)
            let destination = files.episodes + "/" + name
            try FileManager.default.moveItem(atPath: location.path, toPath: destination)
            let attributes = try? FileManager.default.attributesOfItem(atPath: destination)
            let bytes = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            index.add(Episode(title: downloadTask.taskDescription ?? name, url: address, file: name, bytes: bytes))
            try index.save(files.index)
            say("episode \"\(downloadTask.taskDescription ?? name)\" in Episodes/\(name) (\(bytes) bytes)")
        } catch {
            say("cannot keep \(address): \(error)")
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            say("\(task.originalRequest?.url?.absoluteString ?? "a download") failed: \(error.localizedDescription)")
        }
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        say("all finished downloads filed")
        completionHandler?()
        completionHandler = nil
    }
}
