import BackgrounderCore
import CGPS
import Foundation
import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

#if canImport(Glibc)
    import Glibc
#endif

/// Lines the `gpsd` fuzz target (Fuzz/Targets/gpsd.swift, docs/FUZZING.md) found: libgps 3.22's
/// `gps_unpack()`, which `gps_read()` calls, loops for ever on each, so a gpsd (or whatever
/// listens on its port) could stop the daemon's location service with one line. Each is also in
/// Fuzz/Corpus/gpsd.
@Suite("gpsd: lines the fuzzer found", .timeLimit(.minutes(5)))
struct GPSDFuzzRegressionTests {
    static let hangingLines = [
        // What the fuzzer found, a DEVICES report with bytes in an attribute's name, cut down.
        #"{s"class":"DEVICE""#,
        #"{x"class":"TPV"}"#,
        // Well-formed JSON hangs it too: a parse error before a nested "class".
        #"{"class":"TPV","mode":3,"device":{"class":"TPV"}}"#,
        #"{"class":"SKY","satellites":[{"PRN":"x"},{"class":"SKY"}]}"#,
    ]

    static let version =
        #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
    static let fix =
        #"{"class":"TPV","device":"/dev/fake","mode":3,"time":"2025-06-14T07:33:00.000Z","lat":46.36,"lon":14.09,"altMSL":983.3}"#

    /// Runs `body` on a thread of its own and waits for it: a regression hangs in C, which
    /// nothing can interrupt, so the test fails after `seconds` instead of waiting for ever.
    static func finishes(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done.wait(timeout: .now() + seconds) == .success
    }

    @Test("each line is parsed and left behind, as the daemon parses a line", arguments: hangingLines)
    func lineIsLeftBehind(line: String) {
        let finished = Self.finishes(within: 10) {
            var data = gps_data_t()
            line.withCString { cgps_unpack_line($0, &data) }
        }
        #expect(finished, "cgps_unpack_line did not return for \(line)")
    }

    @Test("GPSDConnection reads on past those lines to the fix after them")
    func connectionReadsOn() throws {
        let gpsd = try FakeGPSD(lines: [Self.version] + Self.hangingLines + [Self.fix])
        let found = Locked<Location?>(nil)
        let port = gpsd.port
        let finished = Self.finishes(within: 20) {
            guard let connection = try? GPSDConnection(host: "127.0.0.1", port: "\(port)") else { return }
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline {
                guard let report = try? connection.next(timeout: .milliseconds(200)) else { continue }
                if case .fix(let location) = report {
                    found.withLock { $0 = location }
                    return
                }
            }
        }
        #expect(finished, "reading from gpsd hung")
        let location = try #require(found.withLock { $0 }, "no fix read after the lines")
        #expect(location.coordinate == Coordinate(latitude: 46.36, longitude: 14.09))
        #expect(location.timestamp == 1_749_886_380)
    }
}

/// A gpsd stand-in on a free loopback port: it sends one client `lines`, then reads (and
/// ignores) what the client sends, such as its WATCH request, until the client goes away.
private final class FakeGPSD: Sendable {
    let port: UInt16
    private let listener: Int32

    init(lines: [String]) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        let text = Array((lines.joined(separator: "\n") + "\n").utf8)
        Thread {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var sent = 0
            while sent < text.count {
                let count = text[sent...].withUnsafeBytes {
                    send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard count > 0 else { return }
                sent += count
            }
            var buffer = [UInt8](repeating: 0, count: 512)
            while buffer.withUnsafeMutableBytes({ recv(client, $0.baseAddress, $0.count, 0) }) > 0 {}
        }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
