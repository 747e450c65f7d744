import Foundation

/// Watches the signals a bus name emits (`gdbus monitor`), one line each, e.g.
/// `/org/freedesktop/Notifications: org.freedesktop.Notifications.ActionInvoked (uint32 1, 'default')`.
/// A test checks what a peer (or the daemon) emitted by what a real client saw.
public final class BusMonitor: Sendable {
    private let process: ChildProcess

    /// Starts watching and waits until the subscription is in place.
    /// - Parameters:
    ///   - bus: The bus.
    ///   - sender: The well-known name whose signals to watch.
    ///   - path: Only this object's signals (all of the sender's by default).
    ///   - directory: Where the output goes.
    /// - Throws: ``HarnessError`` when gdbus does not start watching.
    public init(bus: SessionBus, sender: String, path: String? = nil, directory: TemporaryDirectory) async throws {
        var arguments = ["monitor", "--address", bus.address, "--dest", sender]
        if let path { arguments += ["--object-path", path] }
        process = try ChildProcess(
            "/usr/bin/gdbus", arguments,
            logPath: directory.appending("monitor-\(UUID().uuidString.prefix(6).lowercased()).log"))
        // gdbus prints the sender's owner (or that it has none) after its match rule is in place.
        let process = self.process
        let ready = await waitUntil {
            !process.isRunning || process.output.contains("The name \(sender)")
        }
        guard ready, process.isRunning else {
            throw HarnessError("gdbus monitor did not start on \(bus.address): \(process.output)")
        }
    }

    /// Every line printed so far.
    public var output: String { process.output }

    /// The signal lines so far (`PATH: INTERFACE.MEMBER (ARGUMENTS)`).
    public var signals: [String] {
        output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("/") }
    }

    /// Waits until a signal line contains some text.
    /// - Parameters:
    ///   - text: Part of the line, e.g. `ActionInvoked (uint32 1, 'default')`.
    ///   - timeout: The longest wait.
    /// - Returns: Whether such a line came in time.
    @discardableResult
    public func waitFor(_ text: String, timeout: Duration = .seconds(20)) async -> Bool {
        await waitUntil(timeout: timeout) { signals.contains { $0.contains(text) } }
    }

    /// Stops watching.
    public func stop() async {
        await process.stop(grace: .seconds(2))
    }
}
