import ArgumentParser
import BackgrounderCore

/// `--scheduling KEY=VALUE,...`: the standard policy's scheduling numbers, each by its name in
/// ``SchedulingPolicy``.
enum SchedulingOverrides {
    private static var durations: [String: WritableKeyPath<SchedulingPolicy, Duration>] {
        [
            "fetchWindow": \.fetchWindow, "appRefreshWindow": \.appRefreshWindow, "pushWindow": \.pushWindow,
            "locationWindow": \.locationWindow, "processingMaximum": \.processingMaximum,
            "minimumFetchInterval": \.minimumFetchInterval, "fetchBackoffCap": \.fetchBackoffCap,
            "favouredWithin": \.favouredWithin, "coalescingTolerance": \.coalescingTolerance,
            "idleBeforeProcessing": \.idleBeforeProcessing, "pushRefill": \.pushRefill,
            "fetchTolerance": \.fetchTolerance,
            "maximumEarliestBeginDelay": \.maximumEarliestBeginDelay, "urlSessionWindow": \.urlSessionWindow,
            "transferRetryDelay": \.transferRetryDelay, "transferRetryCap": \.transferRetryCap,
            "transferResourceTimeout": \.transferResourceTimeout,
        ]
    }
    private static var counts: [String: WritableKeyPath<SchedulingPolicy, Int>] {
        [
            "dailyFetchBudget": \.dailyFetchBudget, "pushBurst": \.pushBurst,
            "transferConcurrency": \.transferConcurrency, "transferPending": \.transferPending,
            "transferDiskBytes": \.transferDiskBytes,
        ]
    }

    /// Every key, sorted.
    static var keys: [String] { (Array(durations.keys) + Array(counts.keys)).sorted() }

    /// Applies `KEY=VALUE` pairs (several per argument, separated by commas).
    /// - Throws: `ValidationError` naming the pair and why.
    static func apply(_ arguments: [String], to policy: SchedulingPolicy) throws -> SchedulingPolicy {
        var policy = policy
        for pair in arguments.flatMap({ $0.split(separator: ",") }) {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ValidationError("--scheduling \(pair): expected KEY=VALUE") }
            let (key, value) = (parts[0], parts[1])
            if let path = durations[key] {
                guard let seconds = Double(value), seconds.isFinite, seconds >= 0 else {
                    throw ValidationError("--scheduling \(key): '\(value)' is not a number of seconds, 0 or more")
                }
                policy[keyPath: path] = .milliseconds(Int64((seconds * 1000).rounded()))
            } else if let path = counts[key] {
                guard let count = Int(value), count >= 0 else {
                    throw ValidationError("--scheduling \(key): '\(value)' is not a count, 0 or more")
                }
                policy[keyPath: path] = count
            } else {
                throw ValidationError("--scheduling: unknown key '\(key)' (keys: \(keys.joined(separator: ", ")))")
            }
        }
        return policy
    }
}
