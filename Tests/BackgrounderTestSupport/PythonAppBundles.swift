import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Hostile test apps written in Python: a bundle whose executable is a script, so a test can
/// say in a few lines what an app does on the wire, including what BackgroundKit never would.
public enum PythonAppBundles {
    /// What every script starts with: `request(dict)` sends one message on the app's own
    /// connection and returns the reply with the same id (notices in between are kept, the
    /// last thousand, in `_queued`),
    /// `say(text)` prints a line to the app's log, `public(dict)` sends one message on a fresh
    /// connection to the public control socket, `exchange(sock, reader, dict)` on any socket,
    /// `report(key, value)` appends to `report.jsonl` in the app's data directory (what the
    /// app saw, for a failure message: tests judge the daemon's state, not this), and `burn()`
    /// spins on the CPU forever.
    ///
    /// The connection is the descriptor the daemon handed down (`BACKGROUNDER_FD`) when there
    /// is one, else a connection to `BACKGROUNDER_SOCKET`; either way the app checks in first.
    public static let prelude = #"""
        #!/usr/bin/python3
        import json, os, socket, sys, time

        def say(text):
            print(text, flush=True)

        def connect():
            inherited = os.environ.get("BACKGROUNDER_FD")
            if inherited:
                return socket.socket(fileno=int(inherited))
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(os.environ["BACKGROUNDER_SOCKET"])
            return connection

        _connection = connect()
        _stream = _connection.makefile("rwb")
        _next_id = 0
        _queued = []

        def request(message):
            global _next_id
            _next_id += 1
            message = dict(message, id=_next_id)
            _stream.write((json.dumps(message) + "\n").encode())
            _stream.flush()
            while True:
                line = _stream.readline()
                if not line:
                    raise SystemExit("the daemon closed the connection")
                reply = json.loads(line)
                if reply.get("id") == _next_id:
                    return reply
                _queued.append(reply)
                del _queued[:-1000]

        BUNDLE = os.environ["BACKGROUNDER_BUNDLE_ID"]
        DATA = os.environ.get("BACKGROUNDER_DATA_DIR", "/nonexistent")
        SOCKET = os.environ.get("BACKGROUNDER_SOCKET", "")

        def exchange(sock, reader, message):
            message = dict(message, id="x")
            sock.sendall((json.dumps(message) + "\n").encode())
            while True:
                line = reader.readline()
                if not line:
                    return {"class": "CLOSED"}
                reply = json.loads(line)
                if reply.get("id") == "x":
                    return reply

        def public(message):
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.connect(SOCKET)
                    return exchange(sock, sock.makefile("rb"), message)
            except OSError as error:
                return {"class": "OSERROR", "message": str(error)}

        def report(key, value):
            with open(os.path.join(DATA, "report.jsonl"), "a") as f:
                f.write(json.dumps({"key": key, "value": value}) + "\n")

        def burn():
            while True:
                pass
        """#

    /// The prelude's check-in, for scripts that want one.
    public static let checkIn = #"say("checkin " + json.dumps(request({"class": "CHECKIN", "bundle": BUNDLE})))"#

    /// Assembles `directory/NAME.bundle` with the script as its executable.
    /// - Parameters:
    ///   - name: The bundle's base name; the identifier is `org.backgrounder.tests.NAME` lowercased.
    ///   - script: Python after the prelude (or the whole program, with `prelude: false`).
    ///   - modes: `UIBackgroundModes`.
    ///   - prelude: Whether to prepend ``prelude``.
    ///   - executable: `CFBundleExecutable`, a path inside the bundle (default: the name).
    ///   - directory: The bundles directory.
    /// - Returns: The bundle identifier.
    @discardableResult
    public static func make(
        _ name: String, script: String, modes: [String] = [], prelude: Bool = true, executable: String? = nil,
        extraPlist: String = "", into directory: String
    ) throws -> String {
        let executable = executable ?? name
        let identifier = "org.backgrounder.tests.\(name.lowercased())"
        let bundle = directory + "/\(name).bundle"
        try FileManager.default.createDirectory(
            atPath: bundle, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let plist = TestInfoPlist.text(
            identifier: identifier, name: name, executable: executable, modes: modes,
            extra: "<key>NSMicrophoneUsageDescription</key><string>A test app.</string>" + extraPlist)
        try plist.write(toFile: bundle + "/Info.plist", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: bundle + "/Info.plist")
        let program = prelude ? Self.prelude + "\n" + script + "\n" : script
        let path = bundle + "/" + executable
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        try writeScript(program, to: path)
        return identifier
    }

    /// Writes an executable script through a close-on-exec descriptor. Tests run in parallel
    /// in one process: a child another test starts meanwhile must not inherit the descriptor,
    /// or executing the script fails with "text file busy" (and the shell exits 126).
    public static func writeScript(_ text: String, to path: String) throws {
        let file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o755)
        guard file >= 0 else { throw HarnessError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(file) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw HarnessError("cannot write \(path)") }
        fchmod(file, 0o755)
    }
}
