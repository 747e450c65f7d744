package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
package import Foundation
package import Logging

/// The system doing the work for apps that are not running: background fetch, app-refresh
/// and processing tasks (BGTaskScheduler), and silent push.
///
/// The rules are Core's pure functions (``FetchScheduler``, ``TaskReadiness``,
/// ``PushBudget``, ``WakeCoalescer``); this class keeps their state, persists it, and runs
/// one deadline for all apps on the core's timer: at each wake it starts every piece of work
/// due by then, so N apps
/// due about together cost one wake-up, not N. Requests are in
/// SchedulingCapability+Requests.swift.
@AppCoreActor
package final class SchedulingCapability: AppCapability {
    /// What an open event window is for.
    package enum Purpose: Sendable, Hashable {
        case fetch
        case push
        case task(BackgroundTaskRequest)
    }

    /// One piece of work the timer may start.
    package enum Job: Sendable, Hashable {
        case fetch(BundleID)
        case task(BundleID, String)
        case push(BundleID)
    }

    package let store: StateStore
    package let logger: Logger
    /// Wall-clock time; tests of the rules use Core directly, the daemon uses the real clock.
    package let clock: @Sendable () -> Date

    package var histories: [BundleID: FetchHistory]
    package var requests: [BundleID: [String: BackgroundTaskRequest]]
    package var tokens: [BundleID: String] {
        // UnifiedPush registers every app that has a token.
        didSet { pushConnector?.update(tokens) }
    }
    /// UnifiedPush endpoints by app, as the distributor last gave them (it gives them again
    /// whenever the daemon registers, so they are not stored).
    package var pushEndpoints: [BundleID: String] = [:]
    /// The UnifiedPush connector on the session bus, if the daemon has one.
    package let pushConnector: UnifiedPushConnector?
    package var budgets: [BundleID: PushBudget]
    /// Task identifiers the app's running process registered launch handlers for.
    package var registered: [BundleID: Set<String>] = [:]
    /// Open windows, by app.
    package var windows: [BundleID: [EventWindowID: Purpose]] = [:]
    /// Network as the condition monitor last said; power (which the policy's numbers depend
    /// on too) and idleness are the core's.
    package var network = true
    /// The wake set on the core's timer.
    private var timerDue: Date?
    /// Wake-ups the timer made, for `bgctl status` and the benchmark.
    package private(set) var wakeUps = 0

    /// Loads what was scheduled before the daemon (or the machine) restarted.
    package nonisolated init(
        store: StateStore,
        clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger,
        pushConnector: UnifiedPushConnector? = nil
    ) {
        self.pushConnector = pushConnector
        self.store = store
        self.clock = clock
        self.logger = logger
        let stored: StateStore.StoredSchedule
        do {
            stored = try store.loadSchedule()
        } catch {
            logger.error("cannot load scheduled work from \(store.path): \(error); starting with none")
            stored = StateStore.StoredSchedule()
        }
        histories = stored.histories
        requests = stored.requests
        tokens = stored.tokens
        budgets = stored.budgets
        pushConnector?.update(tokens)
    }

    // MARK: The life cycle

    package func app(_ identifier: BundleID, changed change: LifecycleChange, in apps: any AppCore) {
        switch change {
        case .launched:
            registered[identifier] = []
        case .windowsClosed(let closed):
            // A window the person cut short by opening the app says nothing about the fetch;
            // one that ran out (or ended with the app) counts as failed.
            let inFront = apps.state(of: identifier) == .active
            for window in closed {
                guard let purpose = windows[identifier]?.removeValue(forKey: window) else { continue }
                if inFront {
                    apps.appLogger(identifier).info("window \(window) closed: the app came to the front")
                } else {
                    ended(identifier, purpose, result: .failed, in: apps)
                    apps.appLogger(identifier).notice("window \(window) closed before the app completed it")
                }
            }
        case .exited:
            registered[identifier] = nil
            for (_, purpose) in windows.removeValue(forKey: identifier) ?? [:] {
                ended(identifier, purpose, result: .failed, in: apps)
            }
        case .moved(from: _, to: .active):
            // A person opened it: favoured for fetch.
            if histories[identifier] != nil {
                histories[identifier]?.opened(at: clock())
                save(identifier)
            }
        case .checkedIn, .moved, .forceQuit, .assertionsChanged:
            break
        }
        reschedule(in: apps)
    }

    /// Fetch history, task requests, the push token and budget went with the identity.
    package func identityChanged(_ identifier: BundleID, in apps: any AppCore) {
        histories[identifier] = nil
        requests[identifier] = nil
        tokens[identifier] = nil
        pushEndpoints[identifier] = nil
        budgets[identifier] = nil
        registered[identifier] = nil
        windows[identifier] = nil
        reschedule(in: apps)
    }

    /// A window closed: a fetch's or push's outcome goes into the history (a window left to
    /// run out counts as failed).
    package func ended(_ identifier: BundleID, _ purpose: Purpose, result: BackgroundFetchResult, in apps: any AppCore)
    {
        switch purpose {
        case .fetch:
            histories[identifier, default: FetchHistory()].record(result, at: clock())
            save(identifier)
        case .task(let request) where request.kind == .appRefresh:
            histories[identifier, default: FetchHistory()].record(result, at: clock())
            save(identifier)
        case .task, .push:
            break
        }
    }

    package func save(_ identifier: BundleID) {
        guard let history = histories[identifier] else { return }
        do {
            try store.saveFetchHistory(history, for: identifier)
        } catch {
            logger.error("cannot store \(identifier)'s fetch history: \(error)")
        }
    }

    // MARK: Conditions

    /// The condition monitor saw power or network change (the core holds the power).
    package func conditionsChanged(externalPower: Bool, network: Bool, in apps: any AppCore) {
        self.network = network
        expireBrokenTasks(in: apps)
        reschedule(in: apps)
    }

    /// Processing tasks run only while the device is idle: locked, it may start them; in use
    /// again, the running ones are expired, as iOS does when the person picks the phone up.
    package func deviceIdleChanged(idle: Bool, in apps: any AppCore) {
        if !idle {
            for (identifier, open) in windows {
                for (window, purpose) in open {
                    guard case .task(let request) = purpose, request.kind == .processing else { continue }
                    apps.appLogger(identifier).info(
                        "processing task \(request.identifier): the device is in use; expiring it")
                    apps.cutWindow(identifier, window)
                }
            }
        }
        reschedule(in: apps)
    }

    /// The device as processing tasks see it.
    package func conditions(in apps: any AppCore) -> DeviceConditions {
        let idleSince = apps.idleSince.map { clock().addingTimeInterval(-(ContinuousClock.now - $0).seconds) }
        return DeviceConditions(externalPower: apps.externalPower, network: network, idleSince: idleSince)
    }

    /// Processing tasks whose conditions broke are expired.
    package func expireBrokenTasks(in apps: any AppCore) {
        let conditions = conditions(in: apps)
        for (identifier, open) in windows {
            for (window, purpose) in open {
                guard case .task(let request) = purpose, request.kind == .processing,
                    TaskReadiness.mustExpire(request, conditions: conditions)
                else { continue }
                apps.appLogger(identifier).info("processing task \(request.identifier): a condition broke; expiring it")
                apps.cutWindow(identifier, window)
            }
        }
    }

    // MARK: The timer

    /// Every job with the earliest moment it may start; `nil` moments wait for a condition.
    ///
    /// An app in front gets no fetch and no task: it has all the time it wants, and a window
    /// (which its handlers need) opens only in the background. Its work stays due and counts
    /// again when it leaves the front (every life-cycle change reschedules).
    package func jobs(in apps: any AppCore) -> [DueJob<Job>] {
        let now = clock()
        // A wall clock set back leaves launches and buckets "in the future": they count from
        // now, or the work would wait as long as the clock went back (FetchHistory.clampFuture).
        for identifier in histories.keys where histories[identifier]?.clampFuture(to: now) == true {
            save(identifier)
        }
        for identifier in budgets.keys { budgets[identifier]?.clampFuture(to: now) }
        let conditions = conditions(in: apps)
        var jobs: [DueJob<Job>] = []
        for (identifier, history) in histories where !apps.isInFront(identifier) {
            guard let manifest = apps.manifest(of: identifier), manifest.backgroundModes.contains(.fetch),
                windows[identifier]?.values.contains(.fetch) != true,
                let next = FetchScheduler.nextFetch(history, policy: apps.schedulingPolicy(for: manifest), now: now)
            else { continue }
            // Fetch and app refresh promise no timing: they take the longer tolerance.
            jobs.append(
                DueJob(
                    id: .fetch(identifier), earliest: next,
                    tolerance: apps.schedulingPolicy(for: manifest).fetchTolerance))
        }
        for (identifier, pending) in requests where !apps.isInFront(identifier) {
            guard let manifest = apps.manifest(of: identifier) else { continue }
            let numbers = apps.schedulingPolicy(for: manifest)
            let history = histories[identifier] ?? FetchHistory()
            for request in pending.values {
                let waits = TaskReadiness.waits(
                    request, history: history, conditions: conditions, policy: numbers, now: now)
                guard let earliest = Self.earliest(waits, now: now, policy: numbers, conditions: conditions) else {
                    continue
                }
                let tolerance = request.kind == .appRefresh ? numbers.fetchTolerance : nil
                jobs.append(DueJob(id: .task(identifier, request.identifier), earliest: earliest, tolerance: tolerance))
            }
        }
        for (identifier, budget) in budgets {
            guard let manifest = apps.manifest(of: identifier),
                let due = budget.pendingDue(policy: apps.schedulingPolicy(for: manifest))
            else { continue }
            jobs.append(DueJob(id: .push(identifier), earliest: due))
        }
        return jobs
    }

    /// When a request waiting for these things may start, or `nil` when a condition (power,
    /// network) must change first: the condition monitor reschedules then.
    package nonisolated static func earliest(
        _ waits: [SchedulingWait], now: Date, policy: SchedulingPolicy, conditions: DeviceConditions
    ) -> Date? {
        var earliest = now
        for wait in waits {
            switch wait {
            case .earliestBeginDate(let date), .budget(let date), .backoff(let date):
                earliest = max(earliest, date)
            case .idle:
                guard let since = conditions.idleSince else { return nil }
                earliest = max(earliest, since.addingTimeInterval(policy.idleBeforeProcessing.seconds))
            case .externalPower, .network, .never:
                return nil
            }
        }
        return earliest
    }

    /// Sets the one timer to the next coalesced wake.
    package func reschedule(in apps: any AppCore) {
        let jobs = jobs(in: apps)
        let tolerance = apps.schedulingPolicy(for: .placeholder).coalescingTolerance
        let wake = WakeCoalescer.nextWake(jobs, tolerance: tolerance)
        guard wake != timerDue else { return }
        timerDue = wake
        apps.setDeadline(atWallClock: wake, for: self)
    }

    package func deadlineReached(in apps: any AppCore) {
        wake(in: apps)
    }

    /// The timer fired: starts every job due by now.
    package func wake(in apps: any AppCore) {
        timerDue = nil
        wakeUps += 1
        let due = WakeCoalescer.due(jobs(in: apps), at: clock())
        if !due.isEmpty { logger.info("wake \(wakeUps): starting \(due.count) scheduled job(s)") }
        for job in due {
            // Starting one job can make another wait (a fetch and an app refresh of one app
            // share the daily budget): each is checked again just before it starts.
            guard job == due.first || WakeCoalescer.due(jobs(in: apps), at: clock()).contains(job) else { continue }
            switch job {
            case .fetch(let identifier): _ = try? startFetch(identifier, in: apps)
            case .task(let identifier, let task): _ = try? startTask(identifier, task, in: apps)
            case .push(let identifier): deliverDeferredPush(identifier, in: apps)
            }
        }
        reschedule(in: apps)
    }

    // MARK: Starting work

    /// Opens a fetch window for an app (scheduled, or `bgctl simulate fetch`).
    package func startFetch(_ identifier: BundleID, in apps: any AppCore) throws(ProtocolError) -> Done {
        // Checked first: a refusal below records a failed fetch, which only a loaded app has.
        guard apps.manifest(of: identifier) != nil else {
            throw ProtocolError(.notFound, "no loaded bundle has the identifier '\(identifier)'")
        }
        do {
            let (done, window) = try apps.deliverEvent(identifier, .fetch, window: .fetch)
            histories[identifier, default: FetchHistory()].launched(at: clock())
            save(identifier)
            if let window { windows[identifier, default: [:]][window] = .fetch }
            return done
        } catch {
            // Refused (mode, force quit) or the launch failed: it is not tried again at once.
            histories[identifier, default: FetchHistory()].launched(at: clock())
            histories[identifier]?.record(.failed, at: clock())
            save(identifier)
            throw error
        }
    }

    /// Launches or wakes an app for a pending task request, which it then no longer is.
    package func startTask(_ identifier: BundleID, _ task: String, in apps: any AppCore) throws(ProtocolError) -> Done {
        guard let request = requests[identifier]?[task], apps.manifest(of: identifier) != nil else {
            throw ProtocolError(.notFound, "\(identifier) has no pending task request '\(task)'")
        }
        // Its handler runs in a window, which only a background app has: the request waits.
        guard !apps.isInFront(identifier) else {
            throw ProtocolError(.invalidState, "\(identifier) is in front; \(task) runs once it leaves the front")
        }
        let (reason, kind): (LaunchReason, EventWindowKind) =
            request.kind == .appRefresh ? (.appRefresh, .appRefresh) : (.processing, .processing)
        removeRequest(identifier, task)
        let (done, window) = try apps.deliverEvent(identifier, reason, window: kind, task: task)
        if request.kind == .appRefresh {
            histories[identifier, default: FetchHistory()].launched(at: clock())
            save(identifier)
        }
        if let window { windows[identifier, default: [:]][window] = .task(request) }
        return done
    }

    package func removeRequest(_ identifier: BundleID, _ task: String?) {
        if let task { requests[identifier]?[task] = nil } else { requests[identifier] = nil }
        do {
            try store.removeTaskRequests(for: identifier, identifier: task)
        } catch {
            logger.error("cannot remove \(identifier)'s task request: \(error)")
        }
    }

    // MARK: bgctl ps

    package func describe(_ list: inout [AppInfo], in apps: any AppCore) {}
}

extension AppManifest {
    /// A manifest for numbers that are not per app (the coalescing tolerance).
    package static let placeholder = AppManifest(
        bundleIdentifier: "org.backgrounder.system", name: "system", executable: "", backgroundModes: [],
        modesWithoutLinuxMeaning: [], exitsOnSuspend: false, permittedTaskIdentifiers: [],
        usageDescriptions: UsageDescriptions())
}
