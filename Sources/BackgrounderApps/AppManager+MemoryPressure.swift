import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// Memory pressure, as iOS handles it: running apps hear a memory warning first (those in the
/// background before the one in front), then jetsam ends apps without notice, suspended ones
/// (which cannot hear a warning) first and largest first. A running app is ended only under
/// critical pressure and only after it was warned by an earlier pressure, so an app that
/// frees what it can is smaller when jetsam chooses, or is not needed at all.
extension AppManager {
    /// How long a warning counts: an app warned this recently is not warned again by the next
    /// pressure (the kernel's trigger may fire every 2 s while it lasts).
    static let memoryWarningInterval: Duration = .seconds(10)

    /// The first stage: every running app hears `MEMORY_WARNING`, the background ones first.
    /// - Parameter critical: Whether running apps may be ended next.
    /// - Returns: The apps warned now, in the order they were told.
    @discardableResult
    package func warnOfMemoryPressure(critical: Bool) -> [BundleID] {
        let now = self.now
        let running = apps.values.filter { app in
            guard app.process != nil, app.channel != nil, app.lifecycle.terminating == nil,
                app.lifecycle.state != .suspended
            else { return false }
            return app.memoryWarnedAt.map { now - $0 >= Self.memoryWarningInterval } ?? true
        }
        // Background first: the app in front is the person's, warned last, as it is ended last.
        let ordered = running.sorted { lhs, rhs in
            let lhsFront = foreground == lhs.identifier, rhsFront = foreground == rhs.identifier
            return lhsFront == rhsFront ? lhs.identifier < rhs.identifier : !lhsFront
        }
        for app in ordered {
            apps[app.identifier]?.memoryWarnedAt = now
            appLogger(app.identifier, pid: app.process?.pid).notice("memory warning")
            notify(app.identifier, .memoryWarning(MemoryWarning(critical: critical)))
        }
        return ordered.map(\.identifier)
    }

    /// `MEMORY_PRESSURE`, or the kernel's trigger: warns, unless `warning` only, ends the first
    /// app jetsam's order names.
    @discardableResult
    package func memoryPressure(_ pressure: MemoryPressure) -> Done {
        let critical = pressure.critical ?? false
        // Warned before the first is ended, never in the same breath as its own end.
        let warnedBefore = Set(apps.values.compactMap { $0.memoryWarnedAt != nil ? $0.identifier : nil })
        let warned = warnOfMemoryPressure(critical: critical)
        let said = warned.isEmpty ? "" : "warned \(warned.map(\.rawValue).joined(separator: ", ")); "
        guard pressure.warning != true else {
            return Done(detail: "memory warning: " + (warned.isEmpty ? "no running app to warn" : said))
        }
        let done = relieveMemoryPressure(critical: critical, warnedBefore: warnedBefore)
        return Done(detail: said + done.detail, state: done.state)
    }

    /// Ends the first app jetsam's order names, without notice: a suspended app, or under
    /// critical pressure a running one that an earlier pressure warned.
    /// - Parameters:
    ///   - critical: Whether running apps may be ended too.
    ///   - warnedBefore: The apps warned before this pressure.
    /// - Returns: What was done.
    @discardableResult
    package func relieveMemoryPressure(critical: Bool, warnedBefore: Set<BundleID>) -> Done {
        let candidates = apps.values.compactMap { app -> Jetsam.Candidate? in
            guard let process = app.process, app.lifecycle.terminating == nil else { return nil }
            let suspended = app.lifecycle.state == .suspended
            guard suspended || (critical && warnedBefore.contains(app.identifier)) else { return nil }
            return Jetsam.Candidate(
                identifier: app.identifier,
                state: app.lifecycle.state,
                residentBytes: supervisor.memoryBytes(process),
                isForeground: foreground == app.identifier,
                playsAudio: app.lifecycle.assertions.contains(.audio)
            )
        }
        guard let victim = Jetsam.order(candidates).first, let app = apps[victim] else {
            logger.notice("memory pressure, but no app to end")
            return Done(detail: "memory pressure: no app to end")
        }
        let megabytes = (candidates.first { $0.identifier == victim }?.residentBytes ?? 0) / 1_048_576
        appLogger(victim, pid: app.process?.pid).notice("memory pressure: ending it (\(megabytes) MB in use)")
        let state = apply(victim) { lifecycle, _ in lifecycle.terminate(.memoryPressure) }
        return Done(detail: "memory pressure: ended \(victim) (\(megabytes) MB)", state: state)
    }
}
