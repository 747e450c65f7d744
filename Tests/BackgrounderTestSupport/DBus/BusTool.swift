import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderDaemon
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A D-Bus command-line client (`gdbus`, `busctl`, `dbus-send`, `playerctl`, `notify-send`)
/// run to its end with extra environment variables: the bus addresses a test's private buses
/// have, so no tool ever reaches the desktop's buses.
public enum BusTool {
    /// Runs a tool, suspending (not blocking) until it exits, so the test's peers keep
    /// answering it meanwhile.
    /// - Parameters:
    ///   - executable: The tool's absolute path.
    ///   - arguments: Its arguments.
    ///   - environment: Variables set on top of this process's (`DBUS_SESSION_BUS_ADDRESS`...).
    /// - Returns: Its exit status and output (stdout and stderr together).
    /// - Throws: ``HarnessError`` when the tool is not installed or cannot be started.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:]
    ) async throws -> Tool.Result {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw HarnessError("\(executable) is not installed (scripts/setup.sh installs it)")
        }
        let log = TemporaryDirectory.uniquePath("bgbus", suffix: ".log")
        defer { unlink(log) }
        let pid = try ProcessLauncher.spawn(
            executable,
            arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            output: log,
            truncate: true
        )
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let signal = status & 0x7f
        return Tool.Result(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, output: output)
    }
}
