package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
package import Foundation

/// What apps and people ask of the scheduling half: fetch intervals, completions, task
/// requests, device tokens, pushes, and the debugging commands.
extension SchedulingCapability {
    /// Pending task requests one app may have at once (iOS: about ten).
    package static let maximumPendingRequests = 10

    // MARK: Apps

    /// `SET_FETCH_INTERVAL`.
    package func setFetchInterval(_ identifier: BundleID, _ interval: BackgroundFetchInterval, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        if let problem = interval.problem {
            throw ProtocolError(.badRequest, "SET_FETCH_INTERVAL: interval: \(problem)")
        }
        guard let manifest = apps.manifest(of: identifier), manifest.backgroundModes.contains(.fetch) else {
            throw ProtocolError(
                .notPermitted, "\(identifier) does not declare the fetch background mode (UIBackgroundModes)")
        }
        histories[identifier, default: FetchHistory()].setInterval(interval, at: clock())
        save(identifier)
        reschedule(in: apps)
        let next = histories[identifier].flatMap {
            FetchScheduler.nextFetch($0, policy: apps.schedulingPolicy(for: manifest), now: clock())
        }
        return Done(detail: next.map { "next fetch not before \(Self.clockTime($0))" } ?? "background fetch is off")
    }

    /// `COMPLETE`: a completion handler ran.
    package func complete(_ identifier: BundleID, _ completion: WindowCompletion, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        guard let purpose = windows[identifier]?[completion.window] else {
            // A window no scheduled work opened (a background session's events) ends the same
            // way, with nothing to record.
            if apps.completeWindow(identifier, completion.window) {
                return Done(
                    detail: "window \(completion.window) completed", state: apps.state(of: identifier),
                    backgroundTimeRemaining: apps.remaining(identifier))
            }
            // Gone, like a region that was stopped: completed already, ran out, or never this app's.
            throw ProtocolError(
                .notFound,
                "window \(completion.window) is not open for \(identifier): completed already, or it ran out")
        }
        let result: BackgroundFetchResult
        switch purpose {
        case .fetch, .push:
            guard let given = completion.result else {
                throw ProtocolError(.badRequest, "COMPLETE: a fetch or push window needs a result")
            }
            result = given
        case .task:
            guard let success = completion.success else {
                throw ProtocolError(.badRequest, "COMPLETE: a task window needs success")
            }
            result = success ? .newData : .failed
        }
        windows[identifier]?[completion.window] = nil
        ended(identifier, purpose, result: result, in: apps)
        _ = apps.completeWindow(identifier, completion.window)
        reschedule(in: apps)
        return Done(
            detail: "window \(completion.window) completed (\(result.rawValue))", state: apps.state(of: identifier),
            backgroundTimeRemaining: apps.remaining(identifier))
    }

    /// `REGISTER_TASK`: only identifiers the manifest permits.
    package func register(_ identifier: BundleID, task: String, in apps: any AppCore) throws(ProtocolError) -> Done {
        try permit(identifier, task, in: apps)
        registered[identifier, default: []].insert(task)
        return Done(detail: "registered a launch handler for \(task)")
    }

    private func permit(_ identifier: BundleID, _ task: String, in apps: any AppCore) throws(ProtocolError) {
        guard let manifest = apps.manifest(of: identifier), manifest.permittedTaskIdentifiers.contains(task) else {
            throw ProtocolError(
                .notPermitted,
                "'\(task.prefix(256))' is not listed in \(identifier)'s BGTaskSchedulerPermittedIdentifiers")
        }
    }

    /// `SUBMIT_TASK`: replaces a pending request with the same identifier.
    package func submit(_ identifier: BundleID, _ submission: TaskSubmission, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        try permit(identifier, submission.identifier, in: apps)
        guard registered[identifier]?.contains(submission.identifier) == true else {
            throw ProtocolError(
                .invalidState,
                "no launch handler is registered for \(submission.identifier); register it before submitting")
        }
        guard let manifest = apps.manifest(of: identifier) else {
            throw ProtocolError(.notFound, "\(identifier) is not loaded")
        }
        let mode: BackgroundMode = submission.kind == .appRefresh ? .fetch : .processing
        guard manifest.backgroundModes.contains(mode) else {
            throw ProtocolError(
                .notPermitted,
                "\(submission.kind.rawValue) tasks need the \(mode.rawValue) background mode (UIBackgroundModes)")
        }
        // The request's own rules (a finite date not too far ahead, conditions only on
        // processing) are Core's: BackgroundTaskRequest.problem.
        let request = BackgroundTaskRequest(
            identifier: submission.identifier, kind: submission.kind,
            earliestBeginDate: submission.earliestBeginDate.map { Date(timeIntervalSince1970: $0) },
            requiresExternalPower: submission.requiresExternalPower ?? false,
            requiresNetworkConnectivity: submission.requiresNetworkConnectivity ?? false)
        if let problem = request.problem(now: clock(), policy: apps.schedulingPolicy(for: manifest)) {
            throw ProtocolError(.badRequest, "SUBMIT_TASK: \(problem)")
        }
        let pending = requests[identifier] ?? [:]
        if pending[request.identifier] == nil && pending.count >= Self.maximumPendingRequests {
            throw ProtocolError(
                .limitReached, "\(identifier) has \(pending.count) pending task requests, the most an app may have")
        }
        do {
            try store.saveTaskRequest(request, for: identifier)
        } catch {
            throw ProtocolError(.failed, "cannot store the task request: \(error)")
        }
        requests[identifier, default: [:]][request.identifier] = request
        reschedule(in: apps)
        return Done(detail: "submitted \(request.kind.rawValue) task \(request.identifier)")
    }

    /// `CANCEL_TASKS`.
    package func cancel(_ identifier: BundleID, task: String?, in apps: any AppCore) -> Done {
        removeRequest(identifier, task)
        reschedule(in: apps)
        return Done(detail: task.map { "cancelled \($0)" } ?? "cancelled every task request")
    }

    /// `PENDING_TASKS`.
    package func pending(_ identifier: BundleID) -> TaskRequestList {
        TaskRequestList(
            requests: (requests[identifier] ?? [:]).values.sorted { $0.identifier < $1.identifier }.map(Self.submission)
        )
    }

    package nonisolated static func submission(_ request: BackgroundTaskRequest) -> TaskSubmission {
        TaskSubmission(
            identifier: request.identifier, kind: request.kind,
            earliestBeginDate: request.earliestBeginDate?.timeIntervalSince1970,
            requiresExternalPower: request.kind == .processing ? request.requiresExternalPower : nil,
            requiresNetworkConnectivity: request.kind == .processing ? request.requiresNetworkConnectivity : nil)
    }

    /// `REGISTER_PUSH`: the app's token, made once and kept until it unregisters.
    package func registerPush(_ identifier: BundleID) throws(ProtocolError) -> PushToken {
        if let token = tokens[identifier] { return PushToken(token: token, endpoint: pushEndpoints[identifier]) }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        do {
            try store.setPushToken(token, for: identifier)
        } catch {
            throw ProtocolError(.failed, "cannot store the device token: \(error)")
        }
        tokens[identifier] = token
        return PushToken(token: token)
    }

    /// The session's UnifiedPush distributor gave the app with `token` an endpoint: kept for
    /// its next `REGISTER_PUSH`, and told to it now if it can hear.
    package func pushEndpointChanged(token: String, endpoint: String, in apps: any AppCore) {
        guard let identifier = tokens.first(where: { $0.value == token })?.key else { return }
        pushEndpoints[identifier] = endpoint
        if apps.canHear(identifier) { apps.notify(identifier, .pushToken(PushToken(token: token, endpoint: endpoint))) }
    }

    /// `UNREGISTER_PUSH`: the token stops working.
    package func unregisterPush(_ identifier: BundleID) -> Done {
        guard tokens.removeValue(forKey: identifier) != nil else { return Done(detail: "no device token to revoke") }
        try? store.setPushToken(nil, for: identifier)
        return Done(detail: "device token revoked")
    }

    // MARK: People

    /// `PUSH`: a silent push wakes or launches the app within its rate limit; over it, the
    /// latest payload waits for budget and is never dropped.
    package func push(_ request: PushRequest, in apps: any AppCore) throws(ProtocolError) -> PushResult {
        let identifier = try recipient(of: request)
        guard case .object = request.payload else {
            throw ProtocolError(.badRequest, "PUSH: payload must be a JSON object")
        }
        let text = request.payload.text
        guard text.utf8.count <= PushRequest.maximumPayloadBytes else {
            throw ProtocolError(
                .badRequest,
                "PUSH: payload is \(text.utf8.count) bytes; the most is \(PushRequest.maximumPayloadBytes)")
        }
        guard let manifest = apps.manifest(of: identifier) else {
            throw ProtocolError(.notFound, "no loaded bundle has the identifier '\(identifier)'")
        }
        guard Self.isSilent(request.payload) else {
            // Visible notifications are the notification centre's; a running app hears them.
            guard apps.canHear(identifier), apps.state(of: identifier) == .active else {
                throw ProtocolError(
                    .invalidState,
                    "PUSH: only a silent push (aps.content-available: 1) reaches an app that is not in front")
            }
            apps.notify(identifier, .event(EventNotice(reason: .push, payload: request.payload)))
            return PushResult(detail: "delivered to \(identifier) in the foreground", delivered: true)
        }
        // The routing rules first: a push that cannot reach the app is refused, not queued.
        if case .refuse(let why) = EventRouting.decide(
            .push, for: manifest, state: apps.state(of: identifier), forceQuit: apps.isForceQuit(identifier))
        {
            throw ProtocolError(.invalidState, why)
        }
        let numbers = apps.schedulingPolicy(for: manifest)
        var budget = budgets[identifier] ?? PushBudget(full: numbers, now: clock())
        let outcome = budget.offer(text, policy: numbers, now: clock())
        budgets[identifier] = budget
        try? store.savePushBudget(budget, for: identifier)
        switch outcome {
        case .deliverNow:
            let done = try deliverPush(identifier, payload: request.payload, in: apps)
            return PushResult(detail: done.detail, delivered: true)
        case .deferred(let until):
            apps.appLogger(identifier).info("push deferred until \(Self.clockTime(until)): over its push budget")
            reschedule(in: apps)
            return PushResult(
                detail: "deferred until \(Self.clockTime(until)): \(identifier) is over its push budget",
                delivered: false, deferredUntil: until.timeIntervalSince1970)
        }
    }

    private func recipient(of request: PushRequest) throws(ProtocolError) -> BundleID {
        switch (request.bundle, request.token) {
        case (let bundle?, nil): return bundle
        case (nil, let token?):
            guard let bundle = tokens.first(where: { $0.value == token })?.key else {
                throw ProtocolError(.notFound, "PUSH: unknown device token")
            }
            return bundle
        default:
            throw ProtocolError(.badRequest, "PUSH: name exactly one of bundle and token")
        }
    }

    package nonisolated static func isSilent(_ payload: JSONValue) -> Bool {
        switch payload["aps"]?["content-available"] {
        case .number(let value): value == 1
        case .bool(let value): value
        default: false
        }
    }

    /// Wakes or launches the app for a push, with a push window.
    package func deliverPush(_ identifier: BundleID, payload: JSONValue, in apps: any AppCore) throws(ProtocolError)
        -> Done
    {
        let (done, window) = try apps.deliverEvent(identifier, .push, window: .push, payload: payload)
        if let window { windows[identifier, default: [:]][window] = .push }
        return done
    }

    /// A deferred push whose budget returned.
    package func deliverDeferredPush(_ identifier: BundleID, in apps: any AppCore) {
        guard let manifest = apps.manifest(of: identifier), var budget = budgets[identifier],
            let text = budget.takeDue(policy: apps.schedulingPolicy(for: manifest), now: clock())
        else { return }
        budgets[identifier] = budget
        try? store.savePushBudget(budget, for: identifier)
        guard let payload = try? JSONValue(text: text) else { return }
        do {
            _ = try deliverPush(identifier, payload: payload, in: apps)
            apps.appLogger(identifier).info("deferred push delivered")
        } catch {
            apps.appLogger(identifier).notice("deferred push not delivered: \(error.message)")
        }
    }

    /// `WAKE` (`bgctl simulate`): fetch and push open their windows; other events go to the core.
    package func wake(_ request: WakeRequest, in apps: any AppCore) throws(ProtocolError) -> Done {
        switch request.reason {
        case .fetch:
            let done = try startFetch(request.bundle, in: apps)
            reschedule(in: apps)
            return done
        case .push:
            return try deliverPush(
                request.bundle, payload: .object(["aps": .object(["content-available": .number(1)])]), in: apps)
        default:
            return try apps.deliverEvent(request.bundle, request.reason).done
        }
    }

    /// `SIMULATE_TASK`: a pending request starts now, whatever it waits for.
    package func simulateTask(_ request: TaskDebugRequest, in apps: any AppCore) throws(ProtocolError) -> Done {
        let done = try startTask(request.bundle, request.identifier, in: apps)
        reschedule(in: apps)
        return done
    }

    /// `EXPIRE_TASK`: a running task hears its expiration now.
    package func expireTask(_ request: TaskDebugRequest, in apps: any AppCore) throws(ProtocolError) -> Done {
        guard
            let window = windows[request.bundle]?.first(where: {
                if case .task(let task) = $0.value { task.identifier == request.identifier } else { false }
            })?.key
        else {
            throw ProtocolError(.notFound, "\(request.bundle) is not running task \(request.identifier)")
        }
        apps.cutWindow(request.bundle, window)
        return Done(detail: "expiring \(request.identifier)", state: apps.state(of: request.bundle))
    }

    /// `TASKS`: everything pending, with when it may run and what it waits for.
    package func schedule(_ query: ScheduleQuery, in apps: any AppCore) -> ScheduleList {
        let now = clock()
        let conditions = conditions(in: apps)
        var entries: [ScheduledWork] = []
        let bundles = Set(histories.keys).union(requests.keys).union(budgets.keys).union(windows.keys)
        for identifier in bundles.sorted() where query.bundle == nil || query.bundle == identifier {
            guard let manifest = apps.manifest(of: identifier) else { continue }
            let numbers = apps.schedulingPolicy(for: manifest)
            let open = windows[identifier] ?? [:]
            if let history = histories[identifier], history.interval != .never || open.values.contains(.fetch) {
                let waits = FetchScheduler.waits(history, policy: numbers, now: now)
                entries.append(
                    ScheduledWork(
                        bundle: identifier, kind: "fetch", identifier: nil,
                        nextRun: FetchScheduler.nextFetch(history, policy: numbers, now: now)?.timeIntervalSince1970,
                        waitingFor: waits.map(\.description), running: open.values.contains(.fetch)))
            }
            for request in (requests[identifier] ?? [:]).values.sorted(by: { $0.identifier < $1.identifier }) {
                let waits = TaskReadiness.waits(
                    request, history: histories[identifier] ?? FetchHistory(), conditions: conditions,
                    policy: numbers, now: now)
                entries.append(
                    ScheduledWork(
                        bundle: identifier, kind: request.kind.rawValue, identifier: request.identifier,
                        nextRun: Self.earliest(waits, now: now, policy: numbers, conditions: conditions)?
                            .timeIntervalSince1970,
                        waitingFor: waits.map(\.description), running: false))
            }
            for case .task(let request) in open.values {
                entries.append(
                    ScheduledWork(
                        bundle: identifier, kind: request.kind.rawValue, identifier: request.identifier, nextRun: nil,
                        waitingFor: [], running: true))
            }
            if let due = budgets[identifier]?.pendingDue(policy: numbers) {
                entries.append(
                    ScheduledWork(
                        bundle: identifier, kind: "push", identifier: nil, nextRun: due.timeIntervalSince1970,
                        waitingFor: ["push budget"], running: false))
            }
        }
        return ScheduleList(entries: entries)
    }

    /// `HH:MM` in local time, as `bgctl push` says when a deferred push goes.
    package nonisolated static func clockTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }
}
