import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// TCP ports on the loopback interface.
public enum LoopbackPort {
    /// A port nobody listens on right now, below the kernel's ephemeral range (32768 and up).
    ///
    /// Not port 0's choice: that is an ephemeral port, which any process's outgoing connection
    /// may take before the test's server binds it, and which a client retrying to connect
    /// before the server is up (the daemon reconnecting to a gpsd the test starts next) can
    /// reach as a TCP self-connection, holding the port itself.
    public static func free() throws -> UInt16 {
        for _ in 0..<200 {
            let port = UInt16.random(in: 20_000..<32_768)
            if canBind(port) { return port }
        }
        throw HarnessError("no free loopback port in 20000-32767 after 200 tries")
    }

    /// Whether a listener could bind the port now.
    private static func canBind(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// How many TCP connections process `pid` holds to `port` on loopback (any state but
    /// listening), from its sockets in /proc/PID/fd and its network namespace's
    /// /proc/PID/net/tcp and tcp6.
    public static func connections(of pid: Int32, to port: UInt16) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        let inodes = Set(
            descriptors.compactMap { name -> String? in
                let target =
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)")) ?? ""
                guard target.hasPrefix("socket:[") else { return nil }
                return String(target.dropFirst(8).dropLast())
            })
        let remote = String(format: ":%04X", port)
        var count = 0
        for table in ["tcp", "tcp6"] {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/net/\(table)", encoding: .utf8)) ?? ""
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[2].hasSuffix(remote), fields[3] != "0A",
                    inodes.contains(String(fields[9]))
                else { continue }
                count += 1
            }
        }
        return count
    }

    /// Whether something accepts TCP connections on the port.
    public static func isListening(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// A harness step that failed, with what to look at.
public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
