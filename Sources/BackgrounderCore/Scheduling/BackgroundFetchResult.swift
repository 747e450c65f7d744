/// What a fetch (or a silent push, or an app-refresh task) brought: `UIBackgroundFetchResult`.
///
/// ``FetchHistory/record(_:at:)`` keeps it: `.newData` resets the fetch backoff; `.noData` and
/// `.failed` each double the wait before the next fetch, up to the policy's cap.
public enum BackgroundFetchResult: String, Sendable, Hashable, Codable, CaseIterable {
    /// New content arrived.
    case newData
    /// Nothing new.
    case noData
    /// The fetch failed (or its window ran out before the app completed it).
    case failed
}
