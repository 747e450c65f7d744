/// Where the Unix socket of a server the daemon uses lives, read from the same settings the
/// client libraries read, so the daemon can wait for that file to appear instead of retrying
/// on a timer (docs/decisions/0020-idle-wakeups.md).
///
/// `nil` means the address names no single socket file the daemon could watch: TCP, an
/// abstract socket, a list of several servers, or no runtime directory to default to.
public enum ServerSocketPath {
    /// The socket of a D-Bus bus, as sd-bus finds it: the address variable's first
    /// `unix:path=` entry, else `$XDG_RUNTIME_DIR/bus` for the session bus and
    /// `/run/dbus/system_bus_socket` for the system bus.
    /// - Parameters:
    ///   - address: `DBUS_SESSION_BUS_ADDRESS` or `DBUS_SYSTEM_BUS_ADDRESS`, if set.
    ///   - system: Whether this is the system bus.
    ///   - runtimeDirectory: `XDG_RUNTIME_DIR`, if set.
    public static func dbus(address: String?, system: Bool, runtimeDirectory: String?) -> String? {
        guard let address, !address.isEmpty else {
            if system { return "/run/dbus/system_bus_socket" }
            guard let runtimeDirectory, runtimeDirectory.hasPrefix("/") else { return nil }
            return runtimeDirectory + "/bus"
        }
        // Addresses are tried in order; only the first is watched, and only when it is a path.
        guard let first = address.split(separator: ";").first, first.hasPrefix("unix:") else { return nil }
        for pair in first.dropFirst("unix:".count).split(separator: ",") {
            guard pair.hasPrefix("path=") else { continue }
            return unescape(pair.dropFirst("path=".count)).flatMap { $0.hasPrefix("/") ? $0 : nil }
        }
        return nil
    }

    /// The socket of a PulseAudio server, as libpulse finds it: `--pulse-server` or
    /// `PULSE_SERVER` when it names one Unix socket (`unix:/path` or `/path`), else
    /// `$PULSE_RUNTIME_PATH/native`, else `$XDG_RUNTIME_DIR/pulse/native`.
    /// - Parameters:
    ///   - server: The server the daemon was given, or `PULSE_SERVER`.
    ///   - runtimePath: `PULSE_RUNTIME_PATH`, if set.
    ///   - runtimeDirectory: `XDG_RUNTIME_DIR`, if set.
    public static func pulse(server: String?, runtimePath: String?, runtimeDirectory: String?) -> String? {
        if let server, !server.isEmpty {
            // A list of servers (space-separated) or a remote one: nothing single to watch.
            guard !server.contains(where: \.isWhitespace), !server.hasPrefix("{") else { return nil }
            let path = server.hasPrefix("unix:") ? String(server.dropFirst("unix:".count)) : server
            return path.hasPrefix("/") ? path : nil
        }
        if let runtimePath, runtimePath.hasPrefix("/") { return runtimePath + "/native" }
        if let runtimeDirectory, runtimeDirectory.hasPrefix("/") { return runtimeDirectory + "/pulse/native" }
        return nil
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// D-Bus's address escaping: `%xx` for any byte.
    private static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let high = utf8.index(after: index)
                guard high < utf8.endIndex else { return nil }
                let low = utf8.index(after: high)
                guard low < utf8.endIndex, let highValue = hexValue(utf8[high]), let lowValue = hexValue(utf8[low])
                else { return nil }
                let value = highValue << 4 | lowValue
                bytes.append(value)
                index = utf8.index(after: low)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
