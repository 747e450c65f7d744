import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import BackgrounderTransfers
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A daemon, a real HTTP server (TransferServer) and Python apps that speak the transfer
/// requests, for tests of background transfers judged by what ends up on disk and in the
/// daemon, not by what an app was told.
final class TransferFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let bundles: String
    let server: TransferServer
    private(set) var daemon: DaemonProcess
    private let arguments: [String]
    /// A small tmpfs under the state directory, when asked for.
    private let stateDisk: SmallTmpfs?

    init(
        prefix: String, extraArguments: [String] = [], tls: Bool = false, stateDiskSize: String? = nil,
        setUp: (String) throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory(prefix: prefix)
        self.directory = directory
        stateDisk = try stateDiskSize.map { try SmallTmpfs(at: directory.appending("state"), size: $0) }
        bundles = directory.appending("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        if tls {
            try FileManager.default.createDirectory(
                atPath: directory.appending("ca"), withIntermediateDirectories: true)
        }
        let authority = tls ? try TestCertificateAuthority.make(in: directory.appending("ca")) : nil
        try FileManager.default.createDirectory(
            atPath: directory.appending("uploads"), withIntermediateDirectories: true)
        server = try TransferServer(uploadDirectory: directory.appending("uploads"), tls: authority)
        try setUp(bundles)
        arguments =
            LifecycleTests.fastPolicy + ["--scheduling", "transferRetryDelay=0.2,transferRetryCap=2"]
            + (authority.map { ["--trust-ca-file", $0.caFile] } ?? []) + extraArguments
            // A small state disk is for what fills it: no reserve hides the full disk.
            + (stateDiskSize == nil ? [] : TrackerOnSmallDisk.noReserve)
        daemon = try await DaemonProcess(directory: directory, bundleDirectories: [bundles], extraArguments: arguments)
    }

    /// A Python app whose script follows the transfer prelude.
    @discardableResult
    func app(_ name: String, script: String, modes: [String] = []) throws -> String {
        try PythonAppBundles.make(
            name, script: PythonAppBundles.transferPrelude + "\n" + script, modes: modes, into: bundles)
    }

    /// Serves `bytes` pseudo-random bytes at `path`.
    /// - Returns: The file's SHA-256.
    func serveFile(_ path: String, bytes: Int64, seed: UInt64 = 7) async throws -> String {
        let file = directory.appending("served" + path.replacingOccurrences(of: "/", with: "_"))
        try TransferServer.makeFile(at: file, bytes: bytes, seed: seed)
        try server.serve(path: path, file: file)
        return try await TransferServer.sha256(ofFile: file)
    }

    func request(_ body: ClientMessage.Body) throws -> DaemonMessage.Body {
        try daemon.client().request(body).body
    }

    /// Every transfer the daemon keeps, as a person sees them.
    func transfers() -> [TransferInfo] {
        guard case .transferList(let list)? = try? request(.transfers(TransferQuery())) else { return [] }
        return list.transfers
    }

    /// Waits until the daemon's transfers satisfy `condition`.
    @discardableResult
    func waitForTransfers(timeout: Duration = .seconds(60), _ condition: @escaping ([TransferInfo]) -> Bool) async
        -> [TransferInfo]
    {
        var last: [TransferInfo] = []
        await waitUntil(timeout: timeout) {
            last = self.transfers()
            return condition(last)
        }
        return last
    }

    func state(_ id: String) -> ApplicationState? {
        guard case .apps(let list)? = try? request(.ps) else { return nil }
        return list.apps.first { $0.id.rawValue == id }?.state
    }

    func dataDirectory(_ id: String) -> String { daemon.stateDirectory + "/data/" + id }

    /// The app's report lines with this key, as JSON objects.
    func reports(_ id: String, _ key: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: dataDirectory(id) + "/report.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["key"] as? String == key
            else { return nil }
            return object["value"] as? [String: Any]
        }
    }

    /// The SHA-256 of a download the app moved into `DATA/downloads/ID`.
    func downloaded(_ id: String, transfer: Int) async -> String? {
        let path = dataDirectory(id) + "/downloads/\(transfer)"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try? await TransferServer.sha256(ofFile: path)
    }

    /// The partial files the daemon holds for the app's downloads: in its own directory, and
    /// in its directory inside the app's data volume (when the data directory is one).
    func partialFiles(_ id: String) -> [String] {
        let own = (try? FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory + "/transfers")) ?? []
        let inVolume =
            (try? FileManager.default.contentsOfDirectory(
                atPath: dataDirectory(id) + "/" + TransferFiles.volumeDirectoryName)) ?? []
        return own + inVolume
    }

    func appLog(_ id: String) -> String {
        AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(id).log") ?? ""
    }

    /// SIGKILLs the daemon and starts it again on the same state.
    func killAndRestart() async throws {
        daemon.signal(SIGKILL)
        _ = await daemon.waitForExit(timeout: .seconds(10))
        daemon = try await DaemonProcess(directory: directory, bundleDirectories: [bundles], extraArguments: arguments)
    }

    func tearDown() async {
        await daemon.stop()
        await server.shutdown()
        stateDisk?.unmount()
        directory.remove()
    }
}
