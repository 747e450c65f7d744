import Foundation

/// A real gpsd, started by `gpsfake` on a free loopback port and fed an NMEA log.
///
/// gpsfake waits for the first client before it feeds the log, then replays it in a loop,
/// `cycle` seconds between sentences (without a delay the whole log is gone before a live
/// client has connected).
public final class GPSDFake: Sendable {
    /// The port gpsd listens on.
    public let port: UInt16
    private let process: ChildProcess

    /// `127.0.0.1:PORT`, as `backgrounderd --gpsd` takes it.
    public var address: String { "127.0.0.1:\(port)" }

    /// Starts gpsd under gpsfake.
    /// - Parameters:
    ///   - log: The NMEA file to replay.
    ///   - cycle: Seconds between sentences.
    ///   - singleShot: Replay once instead of looping.
    ///   - port: The port to listen on; a free one by default.
    ///   - directory: Where gpsfake's output log goes.
    ///   - logClients: Run gpsd at debug level 2, which logs every client's commands
    ///     (`<= client(0): ?WATCH={"enable":true,...}`) to ``output``.
    /// - Throws: ``HarnessError`` when gpsd does not start listening.
    public init(
        log: String,
        cycle: Double = 0.02,
        singleShot: Bool = false,
        port: UInt16? = nil,
        directory: TemporaryDirectory,
        logClients: Bool = false
    ) async throws {
        self.port = try port ?? LoopbackPort.free()
        var arguments = ["-q", "-P", "\(self.port)", "-c", "\(cycle)"]
        if logClients { arguments += ["-D", "2"] }
        if singleShot { arguments.append("-1") }
        arguments.append(log)
        process = try ChildProcess(
            "/usr/bin/env",
            ["gpsfake"] + arguments,
            logPath: directory.appending("gpsfake-\(self.port).log")
        )
        let port = self.port
        let process = self.process
        guard await waitUntil({ LoopbackPort.isListening(port) || !process.isRunning }), process.isRunning else {
            throw HarnessError("gpsfake did not start gpsd on port \(port): \(process.output)")
        }
    }

    /// gpsfake's own output.
    public var output: String { process.output }

    /// gpsfake's process id (gpsd is its child).
    public var pid: Int32 { process.pid }

    /// Stops gpsfake (which stops its gpsd).
    public func stop() async {
        await process.stop(grace: .seconds(5))
    }
}
