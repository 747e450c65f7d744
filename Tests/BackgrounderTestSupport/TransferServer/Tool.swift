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

/// A command-line tool run to its end (`openssl`, `sha256sum`, `curl`), started as every test
/// child is (``ProcessLauncher``, docs/decisions/0002), with stdout and stderr in one text.
public enum Tool {
    /// How a run ended.
    public struct Result: Sendable {
        /// The exit code, or 128 + the signal that ended it.
        public var status: Int32
        /// What it printed, stdout and stderr together.
        public var output: String
    }

    /// Runs a tool, blocking this thread until it exits: for short tools and for threads that
    /// are not the cooperative pool's.
    /// - Parameters:
    ///   - executable: The tool's absolute path.
    ///   - arguments: Its arguments.
    /// - Returns: Its exit status and output.
    /// - Throws: ``HarnessError`` when it cannot be started.
    public static func run(_ executable: String, _ arguments: [String]) throws -> Result {
        let (pid, log) = try start(executable, arguments)
        defer { unlink(log) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return finish(status, log)
    }

    /// Runs a tool, suspending (not blocking) until it exits, so a test's server keeps serving
    /// the tool meanwhile.
    /// - Parameters:
    ///   - executable: The tool's absolute path.
    ///   - arguments: Its arguments.
    /// - Returns: Its exit status and output.
    /// - Throws: ``HarnessError`` when it cannot be started.
    public static func run(_ executable: String, _ arguments: [String]) async throws -> Result {
        let (pid, log) = try start(executable, arguments)
        defer { unlink(log) }
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return finish(status, log)
    }

    private static func start(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw HarnessError("\(executable) is not installed (scripts/setup.sh installs it)")
        }
        let log = TemporaryDirectory.uniquePath("bgtool", suffix: ".log")
        let environment = ProcessInfo.processInfo.environment
        let pid = try ProcessLauncher.spawn(
            executable, arguments: arguments, environment: environment, output: log, truncate: true)
        return (pid, log)
    }

    private static func finish(_ status: Int32, _ log: String) -> Result {
        // Decoded leniently: output that is not valid UTF-8 is shown, not taken for none.
        let output = FileManager.default.contents(atPath: log).map { String(decoding: $0, as: UTF8.self) } ?? ""
        unlink(log)
        let signal = status & 0x7f
        return Result(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, output: output)
    }
}
