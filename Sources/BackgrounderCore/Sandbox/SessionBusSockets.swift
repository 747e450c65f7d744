/// The file-system sockets a person's session bus is reached at, which an app's sandbox covers
/// so the app cannot connect (docs/SANDBOX.md): apps that keep the person's uid would be
/// admitted, and the bus is the person's desktop, not the app's.
public enum SessionBusSockets {
    /// The `unix:path=` sockets of `DBUS_SESSION_BUS_ADDRESS` (each `;`-separated address of
    /// it, `%XX` escapes decoded) and the default `$XDG_RUNTIME_DIR/bus`, absolute and each once.
    /// Abstract sockets are not paths; Landlock's scoping (ABI 6) refuses them.
    public static func paths(in environment: [String: String]) -> [String] {
        var paths: [String] = []
        for address in (environment["DBUS_SESSION_BUS_ADDRESS"] ?? "").split(separator: ";")
        where address.hasPrefix("unix:") {
            for pair in address.dropFirst("unix:".count).split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == "path", let path = unescaped(parts[1]) { paths.append(path) }
            }
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            paths.append(runtime + "/bus")
        }
        var seen: Set<String> = []
        return paths.filter { $0.hasPrefix("/") && seen.insert($0).inserted }
    }

    /// A D-Bus address value with its `%XX` escapes decoded, or `nil` when one is malformed.
    static func unescaped(_ value: Substring) -> String? {
        var bytes: [UInt8] = []
        var rest = value.utf8[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard rest.count >= 2, let decoded = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(decoded)
            rest = rest.dropFirst(2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
