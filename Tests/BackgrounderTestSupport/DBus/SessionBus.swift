import Foundation

/// A private D-Bus message bus (`dbus-daemon --nofork`) listening on a socket in a test's
/// directory, so a test talks to its own peers and never to the desktop's buses.
///
/// It plays the session bus (notifications, MPRIS, UnifiedPush) or, started a second time,
/// the system bus (logind): hand the daemon ``environment`` or ``systemEnvironment``. Its
/// configuration has no service directories, so nothing is ever activated behind the
/// test's back: a name is owned only by a peer the test started.
public final class SessionBus: Sendable {
    /// The bus address, `unix:path=DIR/NAME`.
    public let address: String
    /// The socket's path.
    public let socketPath: String
    private let process: ChildProcess

    /// `DBUS_SESSION_BUS_ADDRESS`, for a program that uses this bus as its session bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// `DBUS_SYSTEM_BUS_ADDRESS`, for a program that uses this bus as its system bus
    /// (sd-bus's `sd_bus_open_system`, loginctl, playerctl's second bus).
    public var systemEnvironment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": address] }

    /// Whether the tools a private bus and its peers need are installed: dbus-daemon, gdbus,
    /// busctl and Debian's python3 with python3-dbus and python3-gi.
    public static let isAvailable: Bool = {
        let programs = ["/usr/bin/dbus-daemon", "/usr/bin/gdbus", "/usr/bin/busctl", DBusPeerProcess.python]
        let modules = ["/usr/lib/python3/dist-packages/dbus", "/usr/lib/python3/dist-packages/gi"]
        return programs.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
            && modules.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }()

    /// Starts a bus and waits until it answers.
    /// - Parameters:
    ///   - directory: Where its socket, configuration and log go.
    ///   - name: The socket's name, so one directory can hold a session and a system bus.
    ///   - admitsAnyone: Whether any process may connect (`ANONYMOUS` authentication too), as
    ///     apps reach a person's session bus when they keep the person's uid: the bus then lets
    ///     an app in, and only the daemon's own checks stand between it and the person's
    ///     controls. (An app's own uid has no passwd entry, and dbus-daemon refuses such a uid
    ///     over `EXTERNAL` whatever its policy says.)
    /// - Throws: ``HarnessError`` when dbus-daemon is missing or does not come up.
    public init(directory: TemporaryDirectory, name: String = "bus", admitsAnyone: Bool = false) async throws {
        socketPath = directory.appending(name)
        address = "unix:path=\(socketPath)"
        let configuration = directory.appending("\(name).conf")
        try Self.configuration(listen: address, admitsAnyone: admitsAnyone).write(
            toFile: configuration, atomically: true, encoding: .utf8)
        process = try ChildProcess(
            "/usr/bin/dbus-daemon",
            ["--nofork", "--nopidfile", "--nosyslog", "--config-file=\(configuration)"],
            logPath: directory.appending("\(name).log")
        )
        let process = self.process
        let address = self.address
        let socketPath = self.socketPath
        let up = await waitUntil {
            guard process.isRunning else { return true }
            guard FileManager.default.fileExists(atPath: socketPath) else { return false }
            return (try? await Self.ping(address)) == true
        }
        guard up, process.isRunning else {
            throw HarnessError("dbus-daemon did not start on \(socketPath): \(process.output)")
        }
    }

    /// A session-type bus that anyone may use (a root daemon and its tests' peers may run as
    /// different users) and that activates nothing.
    static func configuration(listen: String, admitsAnyone: Bool) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>\(listen)</listen>
          <auth>EXTERNAL</auth>
          \(admitsAnyone ? "<auth>ANONYMOUS</auth><allow_anonymous/>" : "")
          <!-- As Debian's session.conf: no <allow user>, so only the bus's own uid connects
               (unless it admits anyone). -->
          <policy context="default">
            \(admitsAnyone ? "<allow user=\"*\"/>" : "")
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>

        """
    }

    private static func ping(_ address: String) async throws -> Bool {
        let result = try await BusTool.run(
            "/usr/bin/busctl",
            [
                "--address=\(address)", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus", "GetId",
            ])
        return result.status == 0
    }

    /// dbus-daemon's process id.
    public var pid: Int32 { process.pid }

    /// dbus-daemon's log.
    public var output: String { process.output }

    /// Whether a name has an owner on this bus (`org.freedesktop.DBus.NameHasOwner`).
    /// - Parameter name: A well-known name.
    /// - Returns: Whether some connection owns it.
    public func hasOwner(_ name: String) async throws -> Bool {
        let reply = try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
            method: "org.freedesktop.DBus.NameHasOwner", signature: "s", name)
        return reply.first?.bool == true
    }

    /// Calls a method on this bus with `busctl`, as any client would.
    /// - Parameters:
    ///   - destination: The bus name to call.
    ///   - path: The object path.
    ///   - method: `interface.Member`, e.g. `org.freedesktop.Notifications.Notify`.
    ///   - signature: The arguments' D-Bus signature ("" for none).
    ///   - arguments: The arguments in busctl's notation: each basic value as text; an array
    ///     as its count then its elements; a dictionary as its count then key and value pairs,
    ///     each variant as its signature then its value (`busctl(1)`, "PARAMETERS").
    /// - Returns: The reply's values.
    /// - Throws: ``BusCallError`` when the call fails (the error's text names the D-Bus error).
    @discardableResult
    public func call(
        destination: String,
        path: String,
        method: String,
        signature: String = "",
        _ arguments: String...
    ) async throws -> [RecordValue] {
        try await busCall(
            address: address, destination: destination, path: path, method: method, signature: signature,
            arguments: arguments)
    }

    /// Stops the bus: its peers see it go and exit.
    public func stop() async {
        await process.stop(grace: .seconds(5))
    }
}

/// A failed D-Bus call: what busctl said (`Call failed: <the error's message>`).
public struct BusCallError: Error, CustomStringConvertible {
    /// The method called.
    public let method: String
    /// busctl's output, which holds the D-Bus error's message.
    public let output: String
    public var description: String { "\(method) failed: \(output)" }
}

/// Calls a method on a bus with `busctl`, as any client would, and returns the reply's values.
/// - Parameters:
///   - address: The bus address.
///   - destination: The bus name to call.
///   - path: The object path.
///   - method: `interface.Member`.
///   - signature: The arguments' D-Bus signature ("" for none).
///   - arguments: The arguments in busctl's notation (see ``SessionBus/call(destination:path:method:signature:_:)``).
/// - Returns: The reply's values, in order.
/// - Throws: ``BusCallError`` when the call fails; ``HarnessError`` when busctl is missing.
@discardableResult
public func busCall(
    address: String,
    destination: String,
    path: String,
    method: String,
    signature: String = "",
    arguments: [String] = []
) async throws -> [RecordValue] {
    guard let dot = method.lastIndex(of: ".") else {
        throw HarnessError("method: '\(method)' is not interface.Member")
    }
    let interface = String(method[..<dot])
    let member = String(method[method.index(after: dot)...])
    // "--" ends busctl's options, so a negative number (Notify's timeout -1) is an argument.
    var command = ["--address=\(address)", "--json=short", "--", "call", destination, path, interface, member]
    if !signature.isEmpty { command += [signature] + arguments }
    let result = try await BusTool.run("/usr/bin/busctl", command)
    guard result.status == 0 else {
        throw BusCallError(method: method, output: result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    // busctl prints {"type":"SIGNATURE","data":[values...]} for a reply, nothing for an empty one.
    let text = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !text.isEmpty else { return [] }
    let reply = try JSONDecoder().decode([String: RecordValue].self, from: Data(text.utf8))
    return reply["data"]?.array ?? []
}
