package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
package import Foundation
package import Logging

/// Background transfers (a background `URLSession`): downloads and uploads the daemon carries
/// out for apps, which may be suspended or not running meanwhile.
///
/// Transfers are stored (StateStore+Transfers.swift) and resume after a dropped connection,
/// a daemon killed or a reboot. One timer starts waiting transfers when their conditions,
/// date, backoff or the app's share of connections allow; attempts run off the manager's
/// actor (HTTPTransferClient.swift) and report back here. When every transfer of a session
/// is finished and the app is not there to hear it, the app is woken or launched into
/// `handleEventsForBackgroundURLSession` (an `EVENT` of reason `download` naming the
/// session). Requests are in TransferCapability+Requests.swift.
@AppCoreActor
package final class TransferCapability: AppCapability {
    /// One transfer and what the daemon keeps beside its description.
    package struct Transfer {
        package var info: TransferInfo
        /// `ETag` or `Last-Modified` of the partial file's bytes.
        package var validator: String?
        /// The attempt under way.
        package var attempt: Task<Void, Never>?
        /// When the app last heard of its progress.
        package var toldAt: ContinuousClock.Instant?
        /// The last progress sample, for the rate.
        package var sample: (bytes: Int64, at: ContinuousClock.Instant)?
    }

    package let store: StateStore
    package let files: TransferFiles
    package let client: HTTPTransferClient
    package let logger: Logger
    package let clock: @Sendable () -> Date

    package var transfers: [Int: Transfer] = [:]
    package var nextID: Int
    /// Sessions the running process of each app has (re)created: it hears their updates.
    package var attached: [BundleID: Set<String>] = [:]
    /// Sessions whose finished transfers the app was already woken or launched for.
    package var signalled: Set<SessionKey> = []
    /// Sessions that finished while their app was running and listening: told, not woken. If
    /// the process exits before acknowledging them (Podcasts hands its downloads over and
    /// exits; a fast download can finish first), the app is launched for them then, as iOS
    /// relaunches an app for the events its last process did not handle.
    package var heardWhileRunning: Set<SessionKey> = []
    /// Network as the condition monitor last said.
    package var network = true
    /// Set while the daemon stops: attempts cut short stay waiting, to resume next run.
    package var stopping = false
    /// The next check set on the core's timer.
    private var timerDue: Date?

    /// An app's session.
    package struct SessionKey: Hashable {
        package var app: BundleID
        package var session: String
    }

    /// Loads what was stored; transfers that were running when the daemon stopped wait to
    /// resume from their partial files.
    package nonisolated init(
        store: StateStore, files: TransferFiles, client: HTTPTransferClient,
        clock: @escaping @Sendable () -> Date = {
            Date()
        }, logger: Logger
    ) {
        self.store = store
        self.files = files
        self.client = client
        self.clock = clock
        self.logger = logger
        var last = 0
        do {
            last = try store.lastTransferID()
            for stored in try store.loadTransfers() {
                var info = stored.info
                if info.state == .running { info.state = .waiting }
                info.rate = nil
                if info.request.kind == .download, !info.state.isFinished {
                    info.bytesReceived = files.partialLength(info.id, of: info.bundle)
                }
                transfers[info.id] = Transfer(info: info, validator: stored.validator)
            }
        } catch {
            logger.error("cannot load background transfers from \(store.path): \(error); starting with none")
        }
        nextID = last + 1
        let loaded = transfers.count
        if loaded > 0 { logger.info("\(loaded) background transfers loaded") }
    }

    // MARK: The life cycle

    package func app(_ identifier: BundleID, changed change: LifecycleChange, in apps: any AppCore) {
        switch change {
        case .launched:
            attached[identifier] = nil
        case .exited:
            attached[identifier] = nil
            let unheard = heardWhileRunning.filter { $0.app == identifier }
            guard !unheard.isEmpty else { break }
            heardWhileRunning.subtract(unheard)
            // After every capability has heard of the exit: a launch now would reach the
            // others before the exit does.
            Task { [weak self, weak apps] in
                guard let self, let apps else { return }
                for key in unheard { signalIfSessionDone(key, in: apps) }
            }
        case .forceQuit:
            // iOS cancels a force-quit app's transfers; the app hears so when it next attaches.
            for (id, transfer) in transfers where transfer.info.bundle == identifier && !transfer.info.state.isFinished
            {
                end(id, state: .cancelled, error: TransferError(.cancelled, "the app was force-quit"), in: apps)
            }
        case .moved(from: _, to: .active):
            // The app in front goes first.
            reschedule(in: apps)
        case .checkedIn, .moved, .windowsClosed, .assertionsChanged:
            break
        }
    }

    /// The condition monitor saw power or network change.
    package func conditionsChanged(externalPower: Bool, network: Bool, in apps: any AppCore) {
        self.network = network
        reschedule(in: apps)
    }

    // MARK: Starting

    /// Starts what may start now, records why the rest waits, and sets the timer for the
    /// next moment something may start.
    package func reschedule(in apps: any AppCore) {
        guard !stopping else { return }
        let now = clock()
        // Transfers of apps gone from the bundle directories wait until they come back.
        let loaded = transfers.values.filter { apps.manifest(of: $0.info.bundle) != nil }
        for transfer in loaded where transfer.info.state == .waiting {
            let policy = policy(for: transfer.info.bundle, in: apps)
            if now.timeIntervalSince1970 - transfer.info.created > policy.transferResourceTimeout.seconds {
                let url = transfer.info.request.url
                let error = TransferError(.timedOut, "\(url) was not done within \(policy.transferResourceTimeout)")
                end(transfer.info.id, state: .failed, error: error, in: apps)
            }
        }
        var running: [BundleID: Int] = [:]
        for transfer in transfers.values where transfer.info.state == .running {
            running[transfer.info.bundle, default: 0] += 1
        }
        let waiting = loaded.compactMap { transfer -> TransferQueue.Waiting? in
            guard transfers[transfer.info.id]?.info.state == .waiting else { return nil }
            let info = transfer.info
            return TransferQueue.Waiting(
                id: info.id, bundle: info.bundle, created: Date(timeIntervalSince1970: info.created),
                discretionary: info.request.discretionary == true,
                earliestBeginDate: info.request.earliestBeginDate.map(Date.init(timeIntervalSince1970:)),
                retryAt: info.retryAt.map(Date.init(timeIntervalSince1970:)))
        }
        // Transfer numbers are the standard policy's for every app (plug-ins do not set them).
        let numbers = waiting.first.map { policy(for: $0.bundle, in: apps) } ?? SchedulingPolicy()
        let plan = TransferQueue.plan(
            waiting: waiting, running: running, foreground: apps.foreground,
            conditions: DeviceConditions(externalPower: apps.externalPower, network: network, idleSince: nil),
            policy: numbers, now: now)
        for (id, wait) in plan.waits { transfers[id]?.info.waitingFor = wait }
        for id in plan.start { start(id, in: apps) }
        arm(plan.nextCheck, in: apps)
    }

    /// The policy's numbers for an app's transfers.
    package func policy(for bundle: BundleID, in apps: any AppCore) -> SchedulingPolicy {
        apps.manifest(of: bundle).map { apps.schedulingPolicy(for: $0) } ?? SchedulingPolicy()
    }

    /// What an app's downloads hold on disk, partial or delivered and not yet acknowledged,
    /// leaving out one transfer (the one about to start): what the policy's disk cap counts.
    package func bytesOnDisk(of bundle: BundleID, besides excluded: Int? = nil) -> Int64 {
        transfers.values.reduce(Int64(0)) { total, transfer in
            guard transfer.info.bundle == bundle, transfer.info.id != excluded, transfer.info.request.kind == .download
            else { return total }
            return total + max(transfer.info.bytesReceived, 0)
        }
    }

    private func arm(_ due: Date?, in apps: any AppCore) {
        guard due != timerDue else { return }
        timerDue = due
        apps.setDeadline(atWallClock: due, for: self)
    }

    package func deadlineReached(in apps: any AppCore) {
        timerDue = nil
        reschedule(in: apps)
    }

    /// Starts one attempt.
    private func start(_ id: Int, in apps: any AppCore) {
        guard var transfer = transfers[id], transfer.info.state == .waiting else { return }
        transfer.info.state = .running
        transfer.info.waitingFor = nil
        transfer.info.retryAt = nil
        transfer.sample = nil
        let request = transfer.info.request
        let validator = transfer.validator
        let client = client
        let files = files
        let bundle = transfer.info.bundle
        let allowed = apps.containerPaths(of: bundle)
        // What the app's other downloads hold now is not this one's to fill. Two of its
        // downloads running at once each count the other as it was when they started.
        let others = bytesOnDisk(of: bundle, besides: id)
        let byteLimit = max(Int64(policy(for: bundle, in: apps).transferDiskBytes) - others, 0)
        apps.appLogger(bundle).info(
            "transfer \(id) \(transfer.info.retries == 0 ? "starting" : "retrying"): \(request.kind.rawValue) \(request.url)"
        )
        // The core lives as long as the daemon: the attempt holds it strongly.
        let manager = apps
        transfer.attempt = Task {
            let outcome: TransferAttemptOutcome
            switch request.kind {
            case .download:
                outcome = await client.download(
                    request, id: id, of: bundle, files: files, validator: validator, byteLimit: byteLimit,
                    started: { start in
                        await self.responseStarted(id, start, in: manager)
                    },
                    progress: { progress in
                        await self.progressed(id, progress, in: manager)
                    })
            case .upload:
                do {
                    let file = try UploadFile.open(request.file ?? "", allowedIn: allowed)
                    defer { file.close() }
                    outcome = await client.upload(request, file: file) { progress in
                        await self.progressed(id, progress, in: manager)
                    }
                } catch {
                    // The file was the app's own when it was handed over; now it is not.
                    outcome = .failed(.file(.open, path: request.file ?? "", errno: EACCES))
                }
            }
            // A finished download is moved to its app before the core hears of it, off the
            // core's actor: into a data volume of its own it is a copy of the whole file,
            // seconds for a large one, during which nobody else would be served.
            var delivered: Result<DeliveredDownload, TransferFileError>?
            if request.kind == .download, case .finished = outcome {
                delivered = await Task.detached { DeliveredDownload.deliver(id, to: bundle, with: files) }.value
            }
            self.attemptEnded(id, of: bundle, outcome, delivered: delivered, in: manager)
        }
        transfers[id] = transfer
        save(id)
        tell(id, in: apps)
    }

    // MARK: Attempts reporting back

    /// A download's response head arrived: keep its validator for a later resume.
    package func responseStarted(_ id: Int, _ start: TransferResponseStart, in apps: any AppCore) {
        guard transfers[id]?.info.state == .running else { return }
        transfers[id]?.validator = start.validator
        transfers[id]?.info.bytesExpectedToReceive = start.expected
        if start.discarded > 0 {
            transfers[id]?.info.bytesRefetched += start.discarded
            apps.appLogger(transfers[id]!.info.bundle).info(
                "transfer \(id): the server would not resume; \(start.discarded) bytes fetched again")
        }
        save(id)
    }

    /// Bytes moved: the rate, and a notice to the app at most four times a second.
    package func progressed(_ id: Int, _ progress: TransferProgress, in apps: any AppCore) {
        guard var transfer = transfers[id], transfer.info.state == .running else { return }
        let now = ContinuousClock.now
        switch transfer.info.request.kind {
        case .download:
            transfer.info.bytesReceived = progress.bytes
            transfer.info.bytesExpectedToReceive = progress.expected
        case .upload:
            transfer.info.bytesSent = progress.bytes
            transfer.info.bytesExpectedToSend = progress.expected
        }
        if let sample = transfer.sample, now - sample.at >= .milliseconds(500) {
            let rate = Double(progress.bytes - sample.bytes) / (now - sample.at).seconds
            transfer.info.rate = transfer.info.rate.map { $0 * 0.5 + rate * 0.5 } ?? rate
            transfer.sample = (progress.bytes, now)
        } else if transfer.sample == nil {
            transfer.sample = (progress.bytes, now)
        }
        let due = transfer.toldAt.map { now - $0 >= .milliseconds(250) } ?? true
        if due { transfer.toldAt = now }
        transfers[id] = transfer
        if due { tell(id, in: apps) }
    }

    /// An attempt ended: finished, to be retried, or failed.
    /// - Parameters:
    ///   - bundle: The transfer's app (the transfer may be gone from the table by now).
    ///   - delivered: For a finished download, where it was moved to its app
    ///     (``DeliveredDownload``); `nil` to move it here.
    package func attemptEnded(
        _ id: Int, of bundle: BundleID, _ outcome: TransferAttemptOutcome,
        delivered: Result<DeliveredDownload, TransferFileError>? = nil,
        in apps: any AppCore
    ) {
        guard let transfer = transfers[id], transfer.info.state == .running, !stopping else {
            // Cancelled while it was being moved: what reached the app's directory goes too.
            if case .success = delivered {
                files.removeDelivered(id, from: bundle)
            }
            // Ended while the attempt ran (cancelled, a force quit): `end` removed the partial
            // file, but a response head that reached the attempt before its cancellation took
            // hold may have made it again. The attempt is over now, so it stays gone.
            // One whose app's identity was kept aside is gone from the table altogether.
            let state = transfers[id]?.info.state
            if state == nil || state == .cancelled || state == .failed {
                files.removePartial(id, of: bundle)
            }
            return
        }
        transfers[id]?.attempt = nil
        transfers[id]?.info.rate = nil
        let logger = apps.appLogger(bundle)
        switch outcome {
        case .finished(let response):
            transfers[id]?.info.response = response
            if transfer.info.request.kind == .upload {
                transfers[id]?.info.bytesSent = transfer.info.bytesExpectedToSend
            } else {
                switch delivered ?? DeliveredDownload.deliver(id, to: bundle, with: files) {
                case .success(let download):
                    transfers[id]?.info.bytesReceived = download.bytes
                    transfers[id]?.info.location = download.location
                case .failure(let error):
                    end(id, state: .failed, error: TransferError(.cannotMoveFile, "\(error)"), in: apps)
                    return
                }
            }
            logger.info("transfer \(id) completed: \(response.status) from \(response.url)")
            end(id, state: .completed, error: nil, in: apps)
        case .failed(let failure):
            var generator = SystemRandomNumberGenerator()
            let retries = transfer.info.retries + 1
            let outcome = failure.outcome(
                url: transfer.info.request.url, retry: retries,
                backoff: TransferBackoff(policy: policy(for: bundle, in: apps)), now: clock(), using: &generator)
            switch outcome {
            case .retry(let delay, let reason):
                wait(id, retries: retries, after: delay, reason: reason, in: apps)
            case .fail(let error):
                logger.notice("transfer \(id) failed: \(error)")
                end(id, state: .failed, error: error, in: apps)
            case .complete:
                // Not reached: the client reports a response as a failure only when Core
                // retries it (HTTPTransferClient.transientStatus); were it reached, the app
                // would rather hear a failure than wait forever.
                end(id, state: .failed, error: TransferError(.badServerResponse, "\(failure)"), in: apps)
            }
        case .startAgain(let reason):
            wait(id, retries: transfer.info.retries + 1, after: .zero, reason: reason, in: apps)
        case .cancelled:
            end(id, state: .cancelled, error: TransferError(.cancelled, "cancelled"), in: apps)
        }
    }

    /// A transient failure: the transfer waits for its retry, or for the network without
    /// spending one.
    private func wait(_ id: Int, retries: Int, after delay: Duration, reason: String, in apps: any AppCore) {
        guard let bundle = transfers[id]?.info.bundle else { return }
        let logger = apps.appLogger(bundle)
        transfers[id]?.info.state = .waiting
        transfers[id]?.info.lastError = reason
        if !network {
            transfers[id]?.info.waitingFor = .network
            logger.info("transfer \(id) waits for the network: \(reason)")
        } else {
            transfers[id]?.info.retries = retries
            transfers[id]?.info.retryAt = clock().addingTimeInterval(delay.seconds).timeIntervalSince1970
            transfers[id]?.info.waitingFor = .retry
            logger.notice("transfer \(id): \(reason); retry \(retries) in \(delay)")
        }
        save(id)
        tell(id, in: apps)
        reschedule(in: apps)
    }

    // MARK: Ending

    /// The app's transfers belonged to its identity: their rows went with it, and what runs
    /// for them stops here, partial files and all.
    package func identityChanged(_ identifier: BundleID, in apps: any AppCore) {
        for (id, transfer) in transfers where transfer.info.bundle == identifier {
            transfer.attempt?.cancel()
            files.removePartial(id, of: identifier)
            transfers[id] = nil
        }
        attached[identifier] = nil
        signalled = signalled.filter { $0.app != identifier }
        heardWhileRunning = heardWhileRunning.filter { $0.app != identifier }
        reschedule(in: apps)
    }

    /// A transfer is over: stored, told to the app if it listens, and, when its session has
    /// nothing left running, the app woken or launched to hear it.
    package func end(_ id: Int, state: TransferState, error: TransferError?, in apps: any AppCore) {
        guard var transfer = transfers[id] else { return }
        transfer.attempt?.cancel()
        transfer.attempt = nil
        transfer.info.state = state
        transfer.info.error = error
        transfer.info.waitingFor = nil
        transfer.info.retryAt = nil
        transfer.info.rate = nil
        if state != .completed { files.removePartial(id, of: transfer.info.bundle) }
        transfers[id] = transfer
        save(id)
        tell(id, in: apps)
        signalIfSessionDone(SessionKey(app: transfer.info.bundle, session: transfer.info.request.session), in: apps)
        reschedule(in: apps)
    }

    /// When every transfer of the session is finished and the app cannot hear it now
    /// (not running, suspended, or running without the session), it is woken or launched
    /// with the session's identifier, once per batch.
    package func signalIfSessionDone(_ key: SessionKey, in apps: any AppCore) {
        let session = transfers.values.filter { $0.info.bundle == key.app && $0.info.request.session == key.session }
        guard !session.isEmpty, session.allSatisfy({ $0.info.state.isFinished }), !signalled.contains(key) else {
            return
        }
        // A force-quit app hears nothing until a person opens it (it lists them then).
        guard !apps.isForceQuit(key.app) else { return }
        let state = apps.state(of: key.app)
        let listening = attached[key.app]?.contains(key.session) == true && state != .suspended && state != .notRunning
        guard !listening else {
            heardWhileRunning.insert(key)
            return
        }
        if session.contains(where: { $0.info.request.sendsLaunchEvents == false }) && state == .notRunning {
            apps.appLogger(key.app).info(
                "session \(key.session)'s transfers are done; it does not send launch events, so they wait for the app")
            return
        }
        signalled.insert(key)
        do {
            _ = try apps.deliverEvent(key.app, .download, window: .urlSession, session: key.session)
        } catch {
            apps.appLogger(key.app).info(
                "session \(key.session)'s transfers are done; the app hears them when it next runs (\(error.message))")
        }
    }

    // MARK: Telling

    /// Sends the transfer's description to its app when the running process has attached its
    /// session and is not frozen (a frozen app hears the finished ones when it attaches).
    package func tell(_ id: Int, in apps: any AppCore) {
        guard let info = transfers[id]?.info, attached[info.bundle]?.contains(info.request.session) == true,
            apps.state(of: info.bundle) != .suspended
        else { return }
        apps.notify(info.bundle, .transferUpdate(info))
    }

    package func save(_ id: Int) {
        guard let transfer = transfers[id] else { return }
        do {
            try store.saveTransfer(StateStore.StoredTransfer(info: transfer.info, validator: transfer.validator))
        } catch {
            logger.error("cannot store transfer \(id): \(error)")
        }
    }

    /// Transfers stored by an earlier run resume.
    package func start(in apps: any AppCore) {
        reschedule(in: apps)
    }

    /// The daemon is stopping: attempts are cut, and stay waiting to resume next run; then
    /// the client's connections close.
    package func stop(in apps: any AppCore) async {
        stopping = true
        timerDue = nil
        apps.setDeadline(nil, for: self)
        for transfer in transfers.values { transfer.attempt?.cancel() }
        await client.shutdown()
    }
}
