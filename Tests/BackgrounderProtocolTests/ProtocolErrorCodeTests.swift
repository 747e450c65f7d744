import Foundation
import Testing

@testable import BackgrounderProtocol

@Suite("Error codes", .timeLimit(.minutes(5)))
struct ProtocolErrorCodeTests {
    @Test("every code goes out and comes back under its own name, and no two share one")
    func wireNames() throws {
        let codec = LineCodec()
        for code in ProtocolError.Code.known {
            let data = try codec.encode(DaemonMessage(.error(ProtocolError(code, "why"))))
            #expect(String(decoding: data, as: UTF8.self).contains(#""code":"\#(code.rawValue)""#))
            #expect(
                try codec.decode(DaemonMessage.self, from: data.dropLast()).body == .error(ProtocolError(code, "why")))
        }
        #expect(Set(ProtocolError.Code.known.map(\.rawValue)).count == ProtocolError.Code.known.count)
    }

    @Test("docs/PROTOCOL.md lists exactly the codes the daemon may send")
    func documented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appending(path: "docs/PROTOCOL.md"), encoding: .utf8)
        let table = text.components(separatedBy: "| code | meaning |").dropFirst().first ?? ""
        let rows = table.split(separator: "\n").dropFirst().prefix { $0.hasPrefix("| `") }
        let documented = rows.compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) }
        #expect(documented == ProtocolError.Code.known.map(\.rawValue))
    }
}
