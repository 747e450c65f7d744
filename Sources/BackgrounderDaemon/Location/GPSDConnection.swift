import BackgrounderCore
import CGPS

#if canImport(Glibc)
    import Glibc
#endif

/// One open libgps session with gpsd, watching JSON reports.
///
/// Owns the `gps_data_t`: created by the throwing initializer, closed in `deinit`. Every
/// call blocks, so it belongs on a thread of its own, never on Swift's cooperative pool.
final class GPSDConnection {
    private let data: UnsafeMutablePointer<gps_data_t>

    /// Connects to gpsd and starts streaming.
    /// - Parameters:
    ///   - host: gpsd's host.
    ///   - port: gpsd's port.
    /// - Throws: ``GPSDError`` with libgps's reason.
    init(host: String, port: String) throws(GPSDError) {
        // Set up in a local: a class with all stored properties set runs deinit when its
        // initializer throws, which would close and free twice.
        let data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        data.initialize(to: gps_data_t())
        let opened = gps_open(host, port, data)
        guard opened == 0 else {
            let reason = String(cString: cgps_errstr(errno == 0 ? opened : errno))
            data.deallocate()
            throw GPSDError(reason: "cannot connect to gpsd at \(host):\(port): \(reason)")
        }
        guard gps_stream(data, cgps_watch_json(), nil) == 0 else {
            gps_close(data)
            data.deallocate()
            throw GPSDError(reason: "gpsd at \(host):\(port) refused the WATCH request")
        }
        self.data = data
    }

    deinit {
        _ = gps_stream(data, cgps_watch_disable(), nil)
        gps_close(data)
        data.deallocate()
    }

    /// What one read produced.
    enum Report {
        /// A TPV with a 2D or 3D fix.
        case fix(Location)
        /// A TPV without a fix, or without a time yet (gpsd sends these before the first fix).
        case noFix
        /// Anything else (VERSION, DEVICES, WATCH, SKY...).
        case other
    }

    /// Waits up to `timeout` for a report and reads it.
    /// - Parameter timeout: The longest wait.
    /// - Returns: The report, or `nil` when nothing arrived in time.
    /// - Throws: ``GPSDError`` when gpsd closed the connection or the read failed.
    func next(timeout: Duration) throws(GPSDError) -> Report? {
        let microseconds = Int32(timeout.wholeMicroseconds)
        guard gps_waiting(data, microseconds) else {
            return nil
        }
        return try read()
    }

    /// The socket to gpsd, for `poll(2)`.
    var descriptor: Int32 { Int32(data.pointee.gps_fd) }

    /// Whether a report can be read without blocking (libgps may have buffered several).
    var hasBufferedReport: Bool { gps_waiting(data, 0) }

    /// Reads one report; blocks when none is waiting.
    /// - Returns: The report.
    /// - Throws: ``GPSDError`` when gpsd closed the connection or the read failed.
    func read() throws(GPSDError) -> Report {
        let status = gps_read(data, nil, 0)
        guard status >= 0 else {
            throw GPSDError(reason: "gpsd closed the connection")
        }
        guard status > 0, cgps_has_mode(data) else { return .other }
        return Self.report(from: data.pointee)
    }

    private static func report(from data: gps_data_t) -> Report {
        let fix = data.fix
        guard fix.mode >= MODE_2D, !fix.latitude.isNaN, !fix.longitude.isNaN, fix.time.tv_sec > 0 else {
            return .noFix
        }
        func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
        // eph is gpsd's 95% horizontal error; fall back to the larger of epx/epy.
        let horizontal = finite(fix.eph) ?? finite(max(fix.epx, fix.epy))
        let location = Location(
            coordinate: Coordinate(latitude: fix.latitude, longitude: fix.longitude),
            altitude: fix.mode >= MODE_3D ? finite(fix.altMSL) : nil,
            horizontalAccuracy: horizontal,
            verticalAccuracy: finite(fix.epv),
            speed: finite(fix.speed),
            course: finite(fix.track),
            timestamp: Double(fix.time.tv_sec) + Double(fix.time.tv_nsec) / 1e9,
            fixMode: fix.mode >= MODE_3D ? .threeDimensional : .twoDimensional
        )
        return .fix(location)
    }
}

/// Why talking to gpsd failed.
struct GPSDError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
