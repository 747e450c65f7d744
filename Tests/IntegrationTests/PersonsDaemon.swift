import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A daemon as a person runs it: under a uid of the test's choosing rather than root, so its
/// apps keep that uid, as under `systemctl --user`. The test's directory and bundles are
/// given to the uid; the teardowns registered here stop the daemon, then end every process
/// the uid still has, so a containment test that fails leaves nothing running.
enum PersonsDaemon {
    /// Starts the daemon as `uid` (through `setpriv`, after `launcher`, which runs as root).
    static func start(
        as uid: UInt32, directory: TemporaryDirectory, bundles: String, pulseServer: String? = nil,
        extraArguments: [String] = [], environment: [String: String] = [:], launcher: [String] = []
    ) async throws -> DaemonProcess {
        for path in [directory.path, bundles] { chown(path, uid, uid) }
        atTeardown { await UserProcesses.end(of: uid) }
        let setpriv = ["/usr/bin/setpriv", "--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups"]
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], pulseServer: pulseServer,
            extraArguments: extraArguments,
            environment: environment, launcher: launcher + setpriv)
        atTeardown { await daemon.stop() }
        return daemon
    }
}
