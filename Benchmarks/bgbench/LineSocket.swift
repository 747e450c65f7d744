import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking Unix stream socket that reads and writes newline-terminated lines: the same
/// client code measures the daemon and the baseline, so only the server side differs.
final class LineSocket {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 65536)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    convenience init(path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.address(path)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw BenchError("connect \(path): \(String(cString: strerror(errno)))")
        }
        self.init(descriptor: fd)
    }

    static func listen(path: String) throws -> LineSocket {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        unlink(path)
        var address = Self.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, Glibc.listen(fd, 16) == 0 else {
            throw BenchError("listen \(path): \(String(cString: strerror(errno)))")
        }
        return LineSocket(descriptor: fd)
    }

    func accept() throws -> LineSocket {
        let fd = Glibc.accept(descriptor, nil, nil)
        guard fd >= 0 else { throw BenchError("accept: \(String(cString: strerror(errno)))") }
        return LineSocket(descriptor: fd)
    }

    private static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path.utf8.prefix(raw.count - 1))
        }
        return address
    }

    func writeAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { throw BenchError("write: \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    func readLine() throws -> [UInt8] {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[...newline])
                pending.removeSubrange(...newline)
                return line
            }
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { throw BenchError("read: connection closed") }
            pending.append(contentsOf: chunk[..<count])
        }
    }

    func roundTrip(_ request: [UInt8]) throws -> [UInt8] {
        try writeAll(request)
        return try readLine()
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
