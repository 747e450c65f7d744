import BackgrounderCore
import Foundation
import Testing

@Suite("JSONValueEncoder: absent values are null, everything else as JSONEncoder writes it", .timeLimit(.minutes(5)))
struct JSONValueEncoderTests {
    struct Inner: Codable, Equatable {
        var count: Int32?
        var names: [String]
    }

    struct Outer: Codable, Equatable {
        enum State: String, Codable { case running }
        var id: String
        var pid: Int32?
        var seconds: Double?
        var flag: Bool
        var state: State
        var inner: Inner?
        var list: [Inner]
        var table: [String: Int]
        var url: URL
    }

    @Test("every optional field is present, as null when absent, at every depth")
    func nullsEverywhere() throws {
        let value = Outer(
            id: "a.b", pid: nil, seconds: nil, flag: false, state: .running, inner: nil,
            list: [Inner(count: nil, names: ["x"])], table: ["k": 3], url: URL(string: "file:///tmp/a")!)
        let json = try JSONValueEncoder().encode(value)
        guard case .object(let object) = json else {
            Issue.record("not an object: \(json)")
            return
        }
        #expect(Set(object.keys) == ["id", "pid", "seconds", "flag", "state", "inner", "list", "table", "url"])
        #expect(object["pid"] == .null && object["seconds"] == .null && object["inner"] == .null)
        #expect(object["flag"] == .bool(false) && object["state"] == .string("running"))
        #expect(object["list"] == .array([.object(["count": .null, "names": .array([.string("x")])])]))
        #expect(object["table"] == .object(["k": .number(3)]))
        #expect(object["url"] == .string("file:///tmp/a"))
    }

    @Test("what it writes decodes back to the same value")
    func roundTrip() throws {
        let value = Outer(
            id: "a.b", pid: 42, seconds: 1.5, flag: true, state: .running, inner: Inner(count: 7, names: []),
            list: [], table: [:], url: URL(string: "https://example.org/x")!)
        let data = try JSONEncoder().encode(try JSONValueEncoder().encode(value))
        #expect(try JSONDecoder().decode(Outer.self, from: data) == value)
    }
}

@Suite("NearMiss: did you mean", .timeLimit(.minutes(5)))
struct NearMissTests {
    @Test(
        "a swapped pair, a dropped letter or a case slip is a near miss; a different word is not",
        arguments: [
            ("opne", "open"), ("staus", "status"), ("STATUS", "status"), ("bundle", "bundles"), ("fech", "fetch"),
        ])
    func nearMisses(typed: String, meant: String) {
        let words = ["open", "status", "bundles", "fetch", "ps", "quit", "push", "home"]
        #expect(NearMiss.nearest(typed, among: words) == meant)
    }

    @Test("nothing near, nothing suggested; a tie goes to the first in order")
    func farAndTies() {
        #expect(NearMiss.nearest("frobnicate", among: ["open", "status"]) == nil)
        #expect(NearMiss.nearest("pa", among: ["ps", "pb"]) == "pb")
        #expect(NearMiss.editDistance("kitten", "sitting") == 3)
    }
}
