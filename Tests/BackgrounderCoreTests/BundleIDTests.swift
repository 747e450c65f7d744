import BackgrounderCore
import Foundation
import Testing

@Suite("Bundle identifier")
struct BundleIDTests {
    struct Carrier: Codable, Equatable {
        var bundle: BundleID
        var byApp: [BundleID: Int]
    }

    @Test(
        "on the wire it is the plain string, alone and as a dictionary key, so clients and stored rows read it unchanged"
    )
    func wireForm() throws {
        let carrier = Carrier(bundle: "org.example.hike", byApp: ["org.example.hike": 2])
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(carrier), as: UTF8.self)
        #expect(text == #"{"bundle":"org.example.hike","byApp":{"org.example.hike":2}}"#)
        #expect(try JSONDecoder().decode(Carrier.self, from: Data(text.utf8)) == carrier)
    }

    @Test("it sorts and prints as the identifier does")
    func orderAndText() {
        let ids: [BundleID] = ["org.b", "org.a"]
        #expect(ids.sorted().map(\.rawValue) == ["org.a", "org.b"])
        #expect("\(BundleID("org.example.hike"))" == "org.example.hike")
    }
}
