import BackgrounderCore
import Foundation
import Testing

@testable import BackgrounderProtocol

@Suite("Message coding", .timeLimit(.minutes(5)))
struct MessageCodingTests {
    let codec = LineCodec()

    private func line(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("requests survive a round trip through one line")
    func requestRoundTrip() throws {
        let requests: [ClientMessage] = [
            ClientMessage(id: .number(1), .hello(Hello(client: "bgctl"))),
            ClientMessage(id: .string("a"), .status),
            ClientMessage(.bundles),
            ClientMessage(id: .number(9), .reload),
            ClientMessage(id: .number(10), .permissions(PermissionsQuery(bundle: "org.example.a"))),
            ClientMessage(.permissions(PermissionsQuery())),
        ]
        for request in requests {
            let data = try codec.encode(request)
            #expect(data.last == UInt8(ascii: "\n"))
            #expect(!data.dropLast().contains(UInt8(ascii: "\n")), "one message, one line")
            let decoded = try codec.decode(ClientMessage.self, from: data.dropLast())
            #expect(decoded == request)
        }
    }

    @Test("replies survive a round trip, class first-class on the wire")
    func replyRoundTrip() throws {
        let status = DaemonStatus(
            pid: 42,
            uptimeSeconds: 1.5,
            socket: "/run/x.sock",
            stateDirectory: "/var/x",
            bundles: BundleCounts(loaded: 2, refused: 1),
            gpsd: ServiceConnection(server: "127.0.0.1:2947", state: .connected),
            pulseAudio: ServiceConnection(server: "default", state: .disconnected, detail: "Connection refused"),
            lastFix: Location(
                coordinate: Coordinate(latitude: 46.05, longitude: 14.5),
                timestamp: 1_744_286_400,
                fixMode: .threeDimensional
            ),
            lastFixAgeSeconds: 0.4,
            clients: 3,
            storage: StorageStatus(
                state: .failing, lastError: "SQLite error 13 (disk full)", lastErrorAt: 1_744_286_400)
        )
        let replies: [DaemonMessage] = [
            DaemonMessage(.version(.current)),
            DaemonMessage(id: .number(1), .hello(HelloReply(pid: 7, uid: 1000))),
            DaemonMessage(id: .string("s"), .status(status)),
            DaemonMessage(.bundles(BundleList(bundles: [.refused(BundleProblem(path: "/b", key: "k", reason: "r"))]))),
            DaemonMessage(.reload(ReloadResult(loaded: 1, refused: 0, added: ["a"], removed: []))),
            DaemonMessage(id: .number(3), .error(ProtocolError(.unknownClass, "nope"))),
            DaemonMessage(
                id: .number(4),
                .permissions(
                    PermissionList(apps: [
                        PermissionList.Entry(
                            bundle: "org.example.a", name: "A", loaded: true, location: .whenInUse,
                            locationChangedAt: 1,
                            microphone: .denied)
                    ]))),
        ]
        for reply in replies {
            let data = try codec.encode(reply)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains("\"class\":\"\(reply.className)\""))
            #expect(try codec.decode(DaemonMessage.self, from: data.dropLast()) == reply)
        }
    }

    @Test("a number id and a string id are echoed as they came")
    func messageIDs() throws {
        let number = try codec.decode(ClientMessage.self, from: line(#"{"class":"STATUS","id":12}"#))
        #expect(number.id == .number(12))
        let string = try codec.decode(ClientMessage.self, from: line(#"{"class":"STATUS","id":"abc"}"#))
        #expect(string.id == .string("abc"))
    }

    @Test(
        "bad lines are named precisely",
        arguments: [
            ("garbage", ProtocolError.Code.malformedJSON, "not a JSON object"),
            ("[1,2,3]", .malformedJSON, "not an object"),
            (#"{"id":1}"#, .missingClass, "class"),
            (#"{"class":"LAUNCH_MISSILES"}"#, .unknownClass, "LAUNCH_MISSILES"),
            (#"{"class":"HELLO"}"#, .badRequest, "protocol"),
            (#"{"class":"HELLO","protocol":"one"}"#, .badRequest, "an integer"),
            (#"{"class":"STATUS""#, .malformedJSON, "JSON"),
            ("", .malformedJSON, "JSON"),
        ]
    )
    func badLines(text: String, code: ProtocolError.Code, fragment: String) {
        #expect {
            _ = try codec.decode(ClientMessage.self, from: line(text))
        } throws: { error in
            guard let error = error as? ProtocolError else { return false }
            return error.code == code && error.message.contains(fragment)
        }
    }

    @Test("invalid UTF-8 is malformed, not a crash")
    func invalidUTF8() {
        #expect(throws: ProtocolError.self) {
            _ = try codec.decode(ClientMessage.self, from: [0xff, 0xfe, 0x00, 0x7b])
        }
    }
}
