import BackgrounderTestSupport
import Foundation

/// Python's `http.server` serving a directory on a free loopback port: files of any kind,
/// binary ones too (an episode's WAV), which `LocalHTTPServer`'s text documents are not.
struct StaticWebServer {
    let port: UInt16
    private let process: ChildProcess

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts serving `root`; its log goes into `directory`.
    init(root: String, directory: TemporaryDirectory) async throws {
        port = try LoopbackPort.free()
        process = try ChildProcess(
            "/usr/bin/python3",
            ["-m", "http.server", "--bind", "127.0.0.1", "--directory", root, "\(port)"],
            logPath: directory.appending("http-\(port).log"))
        let port = self.port
        let process = self.process
        guard await waitUntil({ LoopbackPort.isListening(port) || !process.isRunning }), process.isRunning else {
            throw HarnessError("python3 -m http.server did not listen on \(port): \(process.output)")
        }
    }

    /// Stops the server.
    func stop() async { await process.stop() }
}
