package import BackgrounderCore
import CGPS

#if canImport(Glibc)
    import Glibc
#endif

/// One open libgps session with gpsd, watching JSON reports.
///
/// Owns the `gps_data_t`: created by the throwing initializer, closed in `deinit`. Every
/// call blocks, so it belongs on a thread of its own, never on Swift's cooperative pool.
package final class GPSDConnection {
    private let data: UnsafeMutablePointer<gps_data_t>
    /// Bytes received from gpsd and not yet parsed: the rest of the last read.
    private var pending: [UInt8] = []
    /// Whether gpsd has answered the WATCH request (a line of class WATCH): until then the
    /// server that accepted the connection has not shown that it is gpsd, or following.
    package private(set) var isWatching = false
    /// Whether the last line was a VERSION report: gpsd's banner, or its answer to ``probe()``.
    package private(set) var lastLineWasVersion = false

    /// Connects to gpsd and starts streaming.
    /// - Parameters:
    ///   - host: gpsd's host.
    ///   - port: gpsd's port.
    /// - Throws: ``GPSDError`` with libgps's reason.
    package init(host: String, port: String) throws(GPSDError) {
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
    package enum Report {
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
    package func next(timeout: Duration) throws(GPSDError) -> Report? {
        if hasBufferedReport { return try read() }
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: (timeout.wholeMicroseconds + 999) / 1000)
        guard poll(&request, 1, milliseconds) > 0 else {
            return nil
        }
        return try read()
    }

    /// The socket to gpsd, for `poll(2)`.
    package var descriptor: Int32 { Int32(data.pointee.gps_fd) }

    /// Whether a report can be read without blocking (a read may have brought several).
    package var hasBufferedReport: Bool { pending.contains(UInt8(ascii: "\n")) }

    /// Reads one report; blocks when none is waiting.
    ///
    /// The lines are read here rather than by `gps_read`, whose parser (`gps_unpack`) loops for
    /// ever on some lines (see `cgps_unpack_line`); as `gps_read` does, a read that completes
    /// no line is `.other`, and a line that fills the buffer without ending is an error.
    /// - Returns: The report.
    /// - Throws: ``GPSDError`` when gpsd closed the connection or the read failed.
    package func read() throws(GPSDError) -> Report {
        if let line = takeLine() { return unpack(line) }
        guard pending.count < Self.bufferSize else {
            throw GPSDError(reason: "gpsd sent a line longer than \(Self.bufferSize) bytes")
        }
        let room = Self.bufferSize - pending.count
        let (received, error) = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: room) { buffer in
            let count = recv(descriptor, buffer.baseAddress, room, 0)
            let error = errno
            if count > 0 { pending.append(contentsOf: buffer.prefix(count)) }
            return (count, error)
        }
        if received == 0 || (received < 0 && error != EINTR && error != EAGAIN) {
            throw GPSDError(reason: "gpsd closed the connection")
        }
        guard let line = takeLine() else { return .other }
        return unpack(line)
    }

    /// libgps's read buffer: twice gpsd 3.22's longest JSON response (`GPS_JSON_RESPONSE_MAX`).
    package static let bufferSize = 2 * 10_240

    /// Removes the first complete line from ``pending``, without its newline, NUL-terminated.
    private func takeLine() -> [CChar]? {
        guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        var line = pending[..<newline].map { CChar(bitPattern: $0) }
        line.append(0)
        pending.removeSubrange(...newline)
        return line
    }

    /// Asks gpsd for its version (`?VERSION;`), which it answers at once even with nothing to
    /// report: whether a gpsd gone quiet is still there.
    /// - Throws: ``GPSDError`` when the request cannot be written.
    package func probe() throws(GPSDError) {
        let request = Array("?VERSION;\n".utf8)
        let sent = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else {
            throw GPSDError(reason: "cannot write to gpsd: \(String(cString: strerror(errno)))")
        }
    }

    /// gpsd writes each object's class first: `{"class":"WATCH",...}`.
    private static let watchClass = Array(#"{"class":"WATCH""#.utf8).map { CChar(bitPattern: $0) }
    private static let versionClass = Array(#"{"class":"VERSION""#.utf8).map { CChar(bitPattern: $0) }

    /// Parses one line into ``data``, as `gps_read` does, and reads a fix from it.
    private func unpack(_ line: [CChar]) -> Report {
        lastLineWasVersion = line.starts(with: Self.versionClass)
        if !isWatching, line.starts(with: Self.watchClass) { isWatching = true }
        cgps_unpack_line(line, data)
        guard cgps_has_mode(data) else { return .other }
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
package struct GPSDError: Error, CustomStringConvertible {
    package var reason: String
    package var description: String { reason }
}
