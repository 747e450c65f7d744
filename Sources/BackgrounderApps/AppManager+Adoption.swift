import BackgrounderAppCore
package import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Apps that outlive the daemon: every running process is recorded in the store as it
/// changes, and a daemon that starts takes over the ones an earlier run left (a restart, an
/// upgrade, a crash), so that restarting the daemon ends no app. See docs/RESTART.md.
extension AppManager {
    /// Records the app's process (or its new state) when what a later run needs changed.
    package func recordProcess(_ identifier: BundleID) {
        guard let app = apps[identifier], let process = app.process, let bootID else { return }
        let suspended = app.lifecycle.state == .suspended
        let foreground = app.lifecycle.wantsForeground
        guard
            app.recorded?.pid != process.pid || app.recorded?.suspended != suspended
                || app.recorded?.foreground != foreground
        else { return }
        guard
            let record = supervisor.record(
                of: process, bundle: identifier, bootID: bootID, reason: app.launchReason, suspended: suspended,
                foreground: foreground)
        else { return }
        do {
            try store.recordProcess(record)
            apps[identifier]?.recorded = (process.pid, suspended, foreground)
        } catch {
            appLogger(identifier, pid: process.pid).warning(
                "cannot record the process for a restart to adopt: \(error)")
        }
    }

    /// Forgets a process that ended.
    package func forgetProcess(_ identifier: BundleID, pid: Int32) {
        do {
            try store.forgetProcess(identifier, pid: pid)
        } catch {
            appLogger(identifier, pid: pid).warning("cannot forget the ended process in the store: \(error)")
        }
    }

    /// Takes over the processes an earlier run left, before anything else can launch one.
    /// An app that cannot be adopted is treated as terminated by the system (its leftovers are
    /// killed), with the usual relaunch rules for the events that follow.
    /// - Returns: The cgroups of the apps adopted, which the caller must not clear.
    package func adoptRecordedProcesses() -> Set<String> {
        let records: [StateStore.ProcessRecord]
        do {
            records = try store.recordedProcesses()
        } catch {
            logger.error("cannot read the processes an earlier run left: \(error); none adopted")
            return []
        }
        var kept: Set<String> = []
        for record in records {
            let identifier = record.bundleIdentifier
            let logger = appLogger(identifier, pid: record.pid)
            guard var app = try? app(identifier), app.process == nil else {
                logger.warning("not adopted: its bundle is no longer loaded; ending it")
                endLeftover(record, .containerGone("its bundle is no longer loaded"))
                if record.cgroupPath != nil, ProcessStat.read(record.pid)?.startTicks == record.startTicks {
                    try? supervisor.mechanism.kill(AppContainer(cgroupPath: record.cgroupPath), leader: record.pid)
                }
                continue
            }
            let result = supervisor.adopt(record, bootID: bootID) { [weak self] status in
                Task { await self?.exited(identifier, status: status) }
            }
            switch result {
            case .failure(let why):
                logger.notice("not adopted: \(why); treated as terminated by the system")
                endLeftover(record, why)
                apps[identifier]?.lastExit = AppExit(
                    kind: .terminated, reason: "not adopted after a daemon restart (\(why))")
            case .success(let process):
                var frozen = supervisor.isFrozen(process)
                if frozen && !record.suspended {
                    // Recorded running, found frozen: a player frozen between refills of its
                    // audio (never recorded: twice a second), or an app suspended by a run
                    // killed before it recorded so. Thawed and adopted running either way: the
                    // player must feed its ring, and the life cycle suspends the other again
                    // after its grace period.
                    do {
                        try supervisor.mechanism.thaw(process.container, leader: process.pid)
                        frozen = false
                    } catch {
                        logger.error("found frozen, and could not thaw: \(error); adopted suspended")
                    }
                }
                app.process = process
                app.launchedFingerprint = registry.fingerprint(ofBundleAt: app.bundle.path)
                app.launchReason = record.launchReason
                app.lifecycle.adopted(
                    suspended: frozen, foreground: record.foreground, now: now,
                    checkInDeadline: limits.checkInDeadline)
                app.recorded = (record.pid, frozen, app.lifecycle.wantsForeground)
                apps[identifier] = app
                if app.lifecycle.wantsForeground { foreground = identifier }
                if let cgroup = record.cgroupPath { kept.insert(cgroup) }
                logger.notice(
                    "adopted from an earlier run (\(frozen ? "suspended" : "running"), launched for \(record.launchReason.rawValue))"
                )
                reschedule(identifier)
                tell(identifier, .launched(record.launchReason))
                tell(identifier, .moved(from: .notRunning, to: app.lifecycle.state))
            }
        }
        return kept
    }

    /// Kills what is left of a recorded app that cannot be adopted, so that no process of it
    /// runs unsupervised: an app must not escape by letting its lead process die while no
    /// daemon runs. Its cgroup is killed whole (whichever mechanism this run uses); under signals, every
    /// process still in its session, and all they started, is killed (the kernel does not reuse
    /// a pid that still names a session, so those are the app's).
    private func endLeftover(_ record: StateStore.ProcessRecord, _ why: AdoptionRefusal) {
        defer { forgetProcess(record.bundleIdentifier, pid: record.pid) }
        switch why {
        case .rebooted: return
        case .processGone, .containerGone, .outputGone: break
        }
        if let cgroup = record.cgroupPath {
            // Whatever is in the app's cgroup goes: the run's leftover clearing would end it,
            // but not when this run suspends with signals and the last one used the freezer.
            if FileManager.default.fileExists(atPath: cgroup + "/cgroup.kill") {
                CgroupControllers.write("1", to: cgroup + "/cgroup.kill")
            }
            return
        }
        let stat = ProcessStat.read(record.pid)
        // A live process with another start time holds the pid now: the app's session is gone.
        if let stat, stat.startTicks != record.startTicks { return }
        for pid in ProcessStat.family(ofLeader: record.pid) {
            kill(pid, SIGKILL)
        }
    }
}
