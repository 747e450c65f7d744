import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
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

/// Starts a program in a session of its own, output to a file, as the supervisor does.
func spawnDetached(_ arguments: [String], environment: [String: String] = [:], output: String = "/dev/null") throws
    -> Int32
{
    try ProcessLauncher.spawn(
        arguments[0],
        arguments: Array(arguments.dropFirst()),
        environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
        output: output,
        mode: 0o644
    )
}

/// Microseconds since `start`.
func microseconds(since start: ContinuousClock.Instant) -> Double {
    (ContinuousClock.now - start).seconds * 1e6
}
