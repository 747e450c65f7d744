import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Foundation

/// `bgctl ps`.
extension AppManager {
    /// Every loaded app: its state, assertions and time left, and what each capability adds.
    package func list() -> AppList {
        let now = self.now
        let bundles = registry.catalog.sortedLoaded.filter { $0.manifest.kind == .application }
        var list = bundles.map { bundle in
            let identifier = bundle.manifest.bundleIdentifier
            let app = apps[identifier]
            let lifecycle = app?.lifecycle
            var assertions = (lifecycle?.tasks ?? [:]).sorted { $0.key < $1.key }.map { "task:\($0.value)" }
            assertions += (lifecycle?.assertions ?? []).sorted().map(\.rawValue)
            let throttled = app?.throttledUntil.flatMap { until in
                until > now ? AppThrottle(reason: "crash loop", secondsRemaining: (until - now).seconds) : nil
            }
            return AppInfo(
                id: identifier,
                name: bundle.manifest.name,
                pid: app?.process?.pid,
                state: lifecycle?.state ?? .notRunning,
                modes: bundle.manifest.sortedModeNames,
                assertions: assertions,
                backgroundTimeRemaining: lifecycle?.backgroundTimeRemaining(now: now)?.seconds,
                cpuSeconds: app?.process.map { supervisor.cpuSeconds($0) } ?? 0,
                lastExit: app?.lastExit,
                throttled: throttled,
                forceQuit: forceQuit.contains(identifier)
            )
        }
        let waiting = Dictionary(grouping: consent.waiting, by: \.bundle)
        for index in list.indices {
            list[index].waitsForConsent = waiting[list[index].id].map { $0.map(\.service.rawValue) }
            if let refill = apps[list[index].id]?.refill, refill.count > 0 {
                list[index].refillFrozenSeconds = refill.total(at: now).seconds
                list[index].refillFreezes = refill.count
                list[index].frozenForRefill = refill.isFrozen
            }
        }
        describe(&list)
        return AppList(apps: list)
    }
}
