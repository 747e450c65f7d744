import Foundation

/// A private, headless PulseAudio with one null sink, in its own runtime directory, so
/// tests never touch a desktop's sound server. `parec -d null.monitor` records what played.
public final class PulseAudioServer: Sendable {
    /// The runtime directory (`PULSE_RUNTIME_PATH`).
    public let runtimePath: String
    private let process: ChildProcess
    private let home: String

    /// The server string clients use: `unix:RUNTIME/native`.
    public var server: String { "unix:\(runtimePath)/native" }

    /// The null sink's name.
    public static let sinkName = "null"

    /// Environment variables that point PulseAudio clients (pacat, parec, pactl, libpulse) here.
    public var clientEnvironment: [String: String] {
        ["PULSE_SERVER": server, "PULSE_RUNTIME_PATH": runtimePath, "HOME": home]
    }

    /// Starts PulseAudio.
    /// - Parameter directory: Where its runtime directory, home and log go.
    /// - Throws: ``HarnessError`` when it does not come up.
    public init(directory: TemporaryDirectory) async throws {
        runtimePath = directory.appending("pulse")
        home = directory.appending("pulse-home")
        for path in [runtimePath, home] {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        }
        let environment = ["PULSE_RUNTIME_PATH": runtimePath, "HOME": home, "XDG_RUNTIME_DIR": runtimePath]
        process = try ChildProcess(
            "/usr/bin/env",
            [
                "pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
                "--load=module-null-sink sink_name=\(Self.sinkName)",
                "--load=module-native-protocol-unix",
            ],
            environment: environment,
            logPath: directory.appending("pulseaudio.log")
        )
        let socket = runtimePath + "/native"
        let process = self.process
        guard await waitUntil({ FileManager.default.fileExists(atPath: socket) || !process.isRunning }),
            process.isRunning
        else {
            throw HarnessError("PulseAudio did not start: \(process.output)")
        }
    }

    /// The server's process id.
    public var pid: Int32 { process.pid }

    /// Its log.
    public var output: String { process.output }

    /// Stops the server.
    public func stop() async {
        await process.stop(grace: .seconds(5))
    }

    /// Kills the server without warning (SIGKILL), as a crash would, and removes its stale
    /// socket so a server started in the same directory is not mistaken for ready.
    public func kill() async {
        process.signal(SIGKILL)
        await process.waitForExit(timeout: .seconds(5))
        try? FileManager.default.removeItem(atPath: runtimePath + "/native")
        try? FileManager.default.removeItem(atPath: runtimePath + "/pid")
    }
}
