import BackgroundKit
import Foundation
import SampleSupport

/// Refreshes the feed, one refresh at a time: a fetch window that opens while the refresh of
/// an app-refresh task (or of the person opening the app) is under way joins it rather than
/// fetching twice and reporting the second fetch as `.noData`.
@MainActor
final class FeedRefresher {
    private let files: FeedFiles
    private var running: Task<BackgroundFetchResult, Never>?

    init(files: FeedFiles) {
        self.files = files
    }

    /// Fetches the feed, stores what changed and says what it did.
    /// - Parameter occasion: What the refresh is for, which starts its line in the log
    ///   (`background fetch: newData: ...`).
    /// - Returns: `.newData` when the items changed, `.noData` when not, `.failed` on an error.
    func refresh(_ occasion: String) async -> BackgroundFetchResult {
        if let running {
            let result = await running.value
            say("\(occasion): \(result.rawValue) (joined the refresh under way)")
            return result
        }
        let task = Task { await self.perform(occasion) }
        running = task
        let result = await task.value
        running = nil
        return result
    }

    /// Stops the refresh under way (the system wants its time back): it ends as `.failed`
    /// and stores nothing.
    func cancel() {
        running?.cancel()
    }

    private func perform(_ occasion: String) async -> BackgroundFetchResult {
        do {
            let source = try FeedSource.load(from: files.source)
            let stored = try FeedStore.load(files.items)
            let timeout = FeedFetcher.timeout(backgroundTimeRemaining: Application.shared.backgroundTimeRemaining)
            let response = try await FeedFetcher.fetch(
                source, validators: stored.validators(for: source.description), timeout: timeout)
            if Task.isCancelled { throw FeedError("\(source): cancelled, the time ran out") }
            let update = try stored.updated(with: response, from: source.description, at: Date())
            try FeedStore.save(update.snapshot, to: files.items)
            guard update.changed else {
                say("\(occasion): noData (\(update.how), \(update.snapshot.items.count) items)")
                return .noData
            }
            say("\(occasion): newData (\(update.snapshot.items.count) items, \(update.newItems.count) new)")
            for item in update.newItems.prefix(5) { say("  + \(Self.oneLine(item.title))") }
            return .newData
        } catch {
            say("\(occasion): failed (\(error))")
            return .failed
        }
    }

    /// A title on one line, for the log.
    nonisolated static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
