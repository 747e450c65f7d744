import BackgrounderCore
import Foundation
import Testing

@testable import BackgrounderProtocol

/// `AUTHORIZE` carries a typed grant in Swift and the words a person types on the wire.
@Suite("AUTHORIZE coding", .timeLimit(.minutes(5)))
struct AuthorizeCodingTests {
    let codec = LineCodec()

    private func decode(_ text: String) throws -> ClientMessage {
        try codec.decode(ClientMessage.self, from: Array(text.utf8))
    }

    @Test("a grant goes out as the words a person types and comes back the same grant")
    func wireWords() throws {
        let grants: [(AuthorizationGrant, service: String, level: String)] = [
            (.location(.always), "location", "always"), (.location(.whenInUse), "location", "when-in-use"),
            (.location(.denied), "location", "never"), (.microphone(.granted), "microphone", "granted"),
            (.microphone(.denied), "microphone", "denied"),
        ]
        for (grant, service, level) in grants {
            let request = ClientMessage(id: .number(1), .authorize(Authorize(bundle: "a.b", grant: grant)))
            let data = try codec.encode(request)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#""service":"\#(service)""#) && text.contains(#""level":"\#(level)""#), "\(text)")
            #expect(try codec.decode(ClientMessage.self, from: data.dropLast()) == request)
        }
    }

    @Test(
        "every word a person or script may send still means what it did",
        arguments: [
            ("location", "always", AuthorizationGrant.location(.always)),
            ("location", "when-in-use", .location(.whenInUse)), ("location", "whenInUse", .location(.whenInUse)),
            ("location", "never", .location(.denied)), ("location", "denied", .location(.denied)),
            ("microphone", "granted", .microphone(.granted)), ("microphone", "", .microphone(.granted)),
            ("microphone", "denied", .microphone(.denied)),
            // Case does not matter to a person typing: ALWAYS was refused while whenInUse passed.
            ("location", "ALWAYS", .location(.always)), ("location", "When-In-Use", .location(.whenInUse)),
            ("Location", "always", .location(.always)), ("notifications", "DENIED", .notifications(.denied)),
        ])
    func acceptedWords(service: String, level: String, grant: AuthorizationGrant) throws {
        let message = try decode(
            #"{"class":"AUTHORIZE","bundle":"a.b","service":"\#(service)","level":"\#(level)"}"#)
        #expect(message.body == .authorize(Authorize(bundle: "a.b", grant: grant)))
    }

    @Test(
        "an unknown service or level is a bad request naming the field and the words allowed",
        arguments: [
            (
                #""service":"camera","level":"granted""#,
                "field 'service': unknown service 'camera' (known: location, microphone, notifications, media-library)"
            ),
            (
                #""service":"location","level":"sometimes""#,
                "field 'level': 'sometimes' is not a location grant (use always, when-in-use, never)"
            ),
            (
                #""service":"location","level":"""#,
                "field 'level': location needs a level: always, when-in-use, never (for example: location always)"
            ),
            (
                #""service":"microphone","level":"maybe""#,
                "field 'level': 'maybe' is not a microphone grant (use granted or denied)"
            ),
            (#""service":"location""#, "missing field 'level'"),
            (#""level":"always""#, "missing field 'service'"),
        ])
    func refusedWords(fields: String, message: String) {
        #expect {
            _ = try decode(#"{"class":"AUTHORIZE","bundle":"a.b",\#(fields)}"#)
        } throws: { error in
            guard let error = error as? ProtocolError else { return false }
            return error.code == .badRequest && error.message.contains(message)
        }
    }

    @Test("not determined is no decision: a grant of it from Swift is refused when it arrives")
    func notDeterminedIsRefused() throws {
        for grant in [AuthorizationGrant.location(.notDetermined), .microphone(.notDetermined)] {
            let data = try codec.encode(ClientMessage(.authorize(Authorize(bundle: "a.b", grant: grant))))
            #expect(throws: ProtocolError.self, "\(grant)") {
                _ = try codec.decode(ClientMessage.self, from: data.dropLast())
            }
        }
    }
}
