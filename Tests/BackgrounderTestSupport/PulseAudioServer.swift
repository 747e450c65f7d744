import Foundation

#if canImport(Glibc)
    import Glibc
#endif

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
    /// - Parameters:
    ///   - directory: Where its runtime directory, home and log go.
    ///   - uid: The user it runs as (through `setpriv`), as a person's own sound server does;
    ///     `nil` for the test's. PulseAudio admits clients of its own uid by their socket
    ///     credentials, and others (the test's `parec`) by the cookie in its home.
    /// - Throws: ``HarnessError`` when it does not come up.
    public init(directory: TemporaryDirectory, runAs uid: UInt32? = nil) async throws {
        runtimePath = directory.appending("pulse")
        home = directory.appending("pulse-home")
        for path in [runtimePath, home] {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            if let uid { chown(path, uid, uid) }
        }
        let environment = ["PULSE_RUNTIME_PATH": runtimePath, "HOME": home, "XDG_RUNTIME_DIR": runtimePath]
        let launcher = uid.map { ["/usr/bin/setpriv", "--reuid", "\($0)", "--regid", "\($0)", "--clear-groups"] } ?? []
        let command = [
            "/usr/bin/env", "pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
            "--load=module-null-sink sink_name=\(Self.sinkName)",
            "--load=module-native-protocol-unix",
        ]
        let program = launcher + command
        process = try ChildProcess(
            program[0], Array(program.dropFirst()),
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
