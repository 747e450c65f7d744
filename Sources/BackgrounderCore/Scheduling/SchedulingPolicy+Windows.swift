extension SchedulingPolicy {
    /// How long a window of this kind lasts: fetch, app refresh and push 30 s, location 10 s,
    /// processing up to its maximum (it ends sooner when its conditions break).
    public func windowLength(_ kind: EventWindowKind) -> Duration {
        switch kind {
        case .fetch: fetchWindow
        case .appRefresh: appRefreshWindow
        case .processing: processingMaximum
        case .push: pushWindow
        case .location: locationWindow
        case .urlSession: urlSessionWindow
        }
    }
}
