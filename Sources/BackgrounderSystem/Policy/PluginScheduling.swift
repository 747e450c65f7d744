package import BackgrounderCore
package import CBackgrounderPolicy
import Foundation
package import Logging

/// A plug-in's scheduling numbers per app and power state, from its optional second entry
/// point (`BackgrounderPolicySchedulingEntryPoint`; see backgrounder_policy.h).
///
/// Each (app, power state) is asked once and cached: the rules ask for numbers many times a
/// wake, and the ABI promises the plug-in one call at a time, so calls happen under the lock.
package final class PluginScheduling: @unchecked Sendable {
    // @unchecked: `entry` is an immutable C function pointer (not Sendable by type); the only
    // mutable state, the cache, is behind a lock.
    private let entry: backgrounder_scheduling_entry_v1
    package let symbol: String
    package let standard: SchedulingPolicy
    private let logger: Logger
    private let cache = Locked<[Key: SchedulingPolicy]>([:])

    private struct Key: Hashable {
        var bundle: BundleID
        var onExternalPower: Bool
    }

    package init(entry: backgrounder_scheduling_entry_v1, symbol: String, standard: SchedulingPolicy, logger: Logger) {
        self.entry = entry
        self.symbol = symbol
        self.standard = standard
        self.logger = logger
    }

    /// The numbers for an app in a power state: the plug-in's, or the standard ones for each
    /// field it got wrong (logged once, when first asked).
    package func numbers(for bundle: BundleID, onExternalPower: Bool) -> SchedulingPolicy {
        cache.withLock { cache in
            let key = Key(bundle: bundle, onExternalPower: onExternalPower)
            if let known = cache[key] { return known }
            var numbers = Self.cNumbers(standard)
            let status = bundle.rawValue.withCString { entry($0, onExternalPower ? 1 : 0, &numbers) }
            let power = onExternalPower ? "on external power" : "on battery"
            let answer: SchedulingPolicy
            if status != 0 {
                logger.error(
                    "policy plug-in \(symbol) returned \(status) for \(bundle) \(power); keeping the standard scheduling numbers"
                )
                answer = standard
            } else {
                let (policy, problems) = Self.policy(from: numbers, standard: standard)
                for problem in problems {
                    logger.error("policy plug-in \(symbol) for \(bundle) \(power): \(problem)")
                }
                answer = policy
            }
            cache[key] = answer
            return answer
        }
    }

    /// The C struct holding `policy`'s numbers.
    package static func cNumbers(_ policy: SchedulingPolicy) -> backgrounder_scheduling_v1 {
        backgrounder_scheduling_v1(
            abi: BACKGROUNDER_SCHEDULING_ABI_V1,
            fetch_window: policy.fetchWindow.seconds,
            app_refresh_window: policy.appRefreshWindow.seconds,
            push_window: policy.pushWindow.seconds,
            location_window: policy.locationWindow.seconds,
            processing_maximum: policy.processingMaximum.seconds,
            minimum_fetch_interval: policy.minimumFetchInterval.seconds,
            daily_fetch_budget: Int32(clamping: policy.dailyFetchBudget),
            fetch_backoff_cap: policy.fetchBackoffCap.seconds,
            favoured_within: policy.favouredWithin.seconds,
            coalescing_tolerance: policy.coalescingTolerance.seconds,
            idle_before_processing: policy.idleBeforeProcessing.seconds,
            push_burst: Int32(clamping: policy.pushBurst),
            push_refill: policy.pushRefill.seconds,
            maximum_earliest_begin_delay: policy.maximumEarliestBeginDelay.seconds,
            fetch_tolerance: policy.fetchTolerance.seconds
        )
    }

    /// The longest duration accepted from a plug-in (100 years): far past any sensible number,
    /// and well inside what `Duration` holds.
    package static let longestSeconds: Double = 100 * 365 * 86_400

    /// The policy a plug-in's answer gives: each field it set to a bad value keeps the standard
    /// one, with a sentence naming the field and why.
    package static func policy(
        from numbers: backgrounder_scheduling_v1, standard: SchedulingPolicy
    ) -> (SchedulingPolicy, problems: [String]) {
        var policy = standard
        var problems: [String] = []
        let durations: [(String, Double, WritableKeyPath<SchedulingPolicy, Duration>)] = [
            ("fetch_window", numbers.fetch_window, \.fetchWindow),
            ("app_refresh_window", numbers.app_refresh_window, \.appRefreshWindow),
            ("push_window", numbers.push_window, \.pushWindow),
            ("location_window", numbers.location_window, \.locationWindow),
            ("processing_maximum", numbers.processing_maximum, \.processingMaximum),
            ("minimum_fetch_interval", numbers.minimum_fetch_interval, \.minimumFetchInterval),
            ("fetch_backoff_cap", numbers.fetch_backoff_cap, \.fetchBackoffCap),
            ("favoured_within", numbers.favoured_within, \.favouredWithin),
            ("coalescing_tolerance", numbers.coalescing_tolerance, \.coalescingTolerance),
            ("idle_before_processing", numbers.idle_before_processing, \.idleBeforeProcessing),
            ("push_refill", numbers.push_refill, \.pushRefill),
            ("maximum_earliest_begin_delay", numbers.maximum_earliest_begin_delay, \.maximumEarliestBeginDelay),
            ("fetch_tolerance", numbers.fetch_tolerance, \.fetchTolerance),
        ]
        for (field, seconds, path) in durations {
            if seconds.isFinite && seconds >= 0 && seconds <= longestSeconds {
                policy[keyPath: path] = .milliseconds(Int64((seconds * 1000).rounded()))
            } else {
                problems.append(
                    "\(field) = \(seconds) is not a number of seconds from 0 to 100 years; keeping \(standard[keyPath: path].seconds)"
                )
            }
        }
        let counts: [(String, Int32, Int32, WritableKeyPath<SchedulingPolicy, Int>)] = [
            ("daily_fetch_budget", numbers.daily_fetch_budget, 0, \.dailyFetchBudget),
            ("push_burst", numbers.push_burst, 1, \.pushBurst),
        ]
        for (field, count, least, path) in counts {
            if count >= least {
                policy[keyPath: path] = Int(count)
            } else {
                problems.append("\(field) = \(count) is below \(least); keeping \(standard[keyPath: path])")
            }
        }
        return (policy, problems)
    }
}
