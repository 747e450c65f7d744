import Foundation

/// One of the Python D-Bus peers in `Tests/Fixtures/dbus/`, running against a test's bus:
/// started, waited for until it owns its name, its record file read back, and stopped.
/// ``NotificationServerPeer``, ``LogindPeer`` and ``PushDistributorPeer`` wrap one each.
public final class DBusPeerProcess: Sendable {
    /// Debian's Python, which has python3-dbus and python3-gi (a pyenv or venv one may not).
    public static let python = "/usr/bin/python3"

    /// The bus it is on.
    public let bus: SessionBus
    /// The well-known name it owns.
    public let name: String
    /// The file it appends one JSON object a line to, for everything it receives.
    public let recordPath: String
    private let process: ChildProcess

    /// Starts a peer and waits until it owns its name.
    /// - Parameters:
    ///   - script: The script's file name in `Tests/Fixtures/dbus/`.
    ///   - name: The well-known name it owns once ready.
    ///   - bus: The bus it connects to.
    ///   - directory: Where its record file and log go.
    ///   - arguments: More command-line arguments.
    /// - Throws: ``HarnessError`` when it exits or does not own its name in time.
    public init(
        script: String,
        name: String,
        bus: SessionBus,
        directory: TemporaryDirectory,
        arguments: [String] = []
    ) async throws {
        self.bus = bus
        self.name = name
        let stem = script.replacingOccurrences(of: ".py", with: "") + "-" + UUID().uuidString.prefix(6).lowercased()
        recordPath = directory.appending("\(stem).jsonl")
        process = try ChildProcess(
            Self.python,
            [Locations.dbusFixture(script), "--address", bus.address, "--record", recordPath] + arguments,
            environment: ["PYTHONDONTWRITEBYTECODE": "1"],
            logPath: directory.appending("\(stem).log")
        )
        let process = self.process
        let owned = await waitUntil {
            guard process.isRunning else { return true }
            return (try? await bus.hasOwner(name)) == true
        }
        guard owned, process.isRunning else {
            throw HarnessError("\(script) did not take \(name) on \(bus.address): \(process.output)")
        }
    }

    /// Its process id.
    public var pid: Int32 { process.pid }

    /// What it printed (a Python traceback when it failed).
    public var output: String { process.output }

    /// Whether it is still running.
    public var isRunning: Bool { process.isRunning }

    /// Everything it has recorded so far, oldest first.
    public func records() -> [PeerRecord] {
        PeerRecord.read(recordPath)
    }

    /// What it has recorded for one event (a method's name), oldest first.
    public func records(_ event: String) -> [PeerRecord] {
        records().filter { $0.event == event }
    }

    /// Waits until it has recorded an event that matches.
    /// - Parameters:
    ///   - event: The event (method) name.
    ///   - timeout: The longest wait (it bounds a failure; it asserts nothing about speed).
    ///   - matching: What the record must hold.
    /// - Returns: The first matching record, or `nil` if none came in time.
    public func waitForRecord(
        _ event: String,
        timeout: Duration = .seconds(20),
        where matching: (PeerRecord) -> Bool = { _ in true }
    ) async -> PeerRecord? {
        var found: PeerRecord?
        await waitUntil(timeout: timeout) {
            found = records(event).first(where: matching)
            return found != nil
        }
        return found
    }

    /// Calls a method on the peer's name with busctl.
    /// - Parameters:
    ///   - path: The object path.
    ///   - method: `interface.Member`.
    ///   - signature: The arguments' signature.
    ///   - arguments: The arguments in busctl's notation.
    /// - Returns: The reply's values.
    /// - Throws: ``BusCallError`` when the peer returns an error.
    @discardableResult
    public func call(path: String, method: String, signature: String = "", _ arguments: [String] = [])
        async throws -> [RecordValue]
    {
        try await busCall(
            address: bus.address, destination: name, path: path, method: method, signature: signature,
            arguments: arguments)
    }

    /// Stops it with SIGTERM (it releases its name and exits 0).
    /// - Returns: Whether it exited cleanly within the grace period.
    @discardableResult
    public func stop() async -> Bool {
        await process.stop(grace: .seconds(5)) && process.terminationStatus == 0
    }
}

extension Locations {
    /// A D-Bus test peer in `Tests/Fixtures/dbus/`.
    public static func dbusFixture(_ name: String) -> String {
        repositoryRoot + "/Tests/Fixtures/dbus/" + name
    }
}
