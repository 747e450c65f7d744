import BackgrounderCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why systemd is stopping the daemon: the first half of a restart, or a stop.
///
/// systemd signals a service the same way for both, but the unit's job says which: while a
/// `systemctl restart` (an upgrade's, or `Restart=`'s) stops the old process, the unit's job
/// is of type `restart`; `systemctl stop`, `disable --now`, a package's removal or the end of
/// the session give it a `stop` job. `--live-restore` leaves the apps running only across a
/// restart (docs/RESTART.md).
package enum SystemdStopJob: Equatable, Sendable {
    /// A restart: the next daemon adopts the apps.
    case restart
    /// A stop: the apps end with the daemon.
    case stop

    /// Asks the service manager that runs this process (the user manager on the session bus,
    /// or PID 1 on the system bus, as `MANAGERPID` says) what its unit's job is.
    /// - Parameters:
    ///   - environment: The daemon's environment (`MANAGERPID`, the bus addresses).
    ///   - timeout: How long each of the three calls may take.
    /// - Returns: The job's kind, or why it is unknown (not run by systemd, no bus, no job).
    package static func current(
        environment: [String: String] = ProcessInfo.processInfo.environment, timeout: Duration = .seconds(2)
    ) -> Result<SystemdStopJob, DBusError> {
        guard let manager = environment["MANAGERPID"].flatMap(Int32.init) else {
            return .failure(DBusError("not run by systemd (no MANAGERPID)"))
        }
        let destination = "org.freedesktop.systemd1"
        do throws(DBusError) {
            let connection = try BusConnection(kind: manager == 1 ? .system : .session, description: "stop-job")
            defer { connection.close() }
            let unit = try connection.callAndWait(
                destination, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager", "GetUnitByPID",
                [.uint32(UInt32(getpid()))], timeout: timeout
            ).first?.stringValue
            guard let unit else { throw DBusError("GetUnitByPID gave no unit") }
            let job = try property(
                "org.freedesktop.systemd1.Unit", "Job", of: unit, on: connection, timeout: timeout)
            guard case .structure(let fields) = job, fields.count == 2, let path = fields[1].stringValue else {
                throw DBusError("\(unit) has a Job property of another shape")
            }
            guard path != "/" else { throw DBusError("\(unit) has no job: the stop did not come from systemd") }
            let type = try property(
                "org.freedesktop.systemd1.Job", "JobType", of: path, on: connection, timeout: timeout
            ).stringValue
            return .success(type?.contains("restart") == true ? .restart : .stop)
        } catch {
            return .failure(error)
        }
    }

    private static func property(
        _ interface: String, _ name: String, of path: String, on connection: BusConnection, timeout: Duration
    ) throws(DBusError) -> DBusValue {
        let values = try connection.callAndWait(
            "org.freedesktop.systemd1", path, "org.freedesktop.DBus.Properties", "Get",
            [.string(interface), .string(name)], timeout: timeout)
        guard case .variant(let value) = values.first else { throw DBusError("\(path) has no \(name)") }
        return value
    }
}
