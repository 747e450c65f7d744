import Foundation

/// `parec` recording the null sink's monitor: what really played, as raw s16le mono.
public final class PulseCapture: Sendable {
    /// The capture's rate.
    public static let sampleRate = 44_100
    private let process: ChildProcess
    private let path: String

    /// Starts recording and waits until the monitor's silence begins to arrive.
    /// - Parameters:
    ///   - pulse: The server.
    ///   - path: Where the raw capture goes.
    public init(pulse: PulseAudioServer, path: String) async throws {
        self.path = path
        process = try ChildProcess(
            "/usr/bin/env",
            [
                "parec", "-d", "\(PulseAudioServer.sinkName).monitor", "--raw", "--format=s16le",
                "--rate=\(Self.sampleRate)", "--channels=1", "--latency-msec=50", path,
            ],
            environment: pulse.clientEnvironment,
            logPath: path + ".log"
        )
        let started = await waitUntil { Self.size(path) > 4410 }
        guard started else { throw HarnessError("parec did not start: \(process.output)") }
    }

    private static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    /// Seconds recorded so far.
    public var seconds: Double { Double(Self.size(path)) / Double(2 * Self.sampleRate) }

    /// The samples recorded so far from `start` seconds on, in -1...1, while recording goes
    /// on: a wait that polls reads only what is new to it, not the whole capture each time.
    public func samples(from start: Double = 0) throws -> [Double] {
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? file.close() }
        try file.seek(toOffset: UInt64(max(0, Int(start * Double(Self.sampleRate)))) * 2)
        let bytes = [UInt8](try file.readToEnd() ?? Data())
        return ToneAnalysis.firstChannel(ofS16LE: bytes, channels: 1)
    }

    /// Stops recording and returns the samples in -1...1.
    public func stop() async throws -> [Double] {
        await process.stop(grace: .seconds(2))
        return try samples()
    }
}
