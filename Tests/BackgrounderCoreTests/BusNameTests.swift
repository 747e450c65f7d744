import BackgrounderCore
import Testing

@Suite("D-Bus names and values", .timeLimit(.minutes(5)))
struct BusNameTests {
    @Test("an MPRIS name keeps a bundle identifier's elements and makes each valid")
    func mediaPlayerNames() {
        #expect(
            BusName.mediaPlayer(for: "org.backgrounder.samples.backgroundplayer")
                == "org.mpris.MediaPlayer2.backgrounder.org.backgrounder.samples.backgroundplayer")
        // A digit may not start an element; characters outside [A-Za-z0-9_-] become _.
        #expect(BusName.elements(of: "com.2048.game") == "com._2048.game")
        #expect(BusName.elements(of: "com.ex-ample.Ünï") == "com.ex-ample._n_")
        #expect(BusName.elements(of: "a..b.") == "a.b")
    }

    @Test("signatures describe containers even when they are empty")
    func signatures() {
        #expect(DBusValue.strings([]).signature == "as")
        #expect(DBusValue.vardict([:]).signature == "a{sv}")
        #expect(DBusValue.structure([.int32(1), .string("x"), .array(element: "y", [])]).signature == "(isay)")
        #expect(DBusValue.variant(.uint64(1)).signature == "v")
    }

    @Test("values read through variants; a property map is keyed by name")
    func accessors() {
        let map = DBusValue.vardict(["LockedHint": .boolean(true), "Id": .string("1"), "Leader": .uint32(42)])
        let entries = map.dictionaryValue
        #expect(entries?["LockedHint"]?.booleanValue == true)
        #expect(entries?["Id"]?.stringValue == "1")
        #expect(entries?["Leader"]?.integerValue == 42)
        #expect(DBusValue.array(element: "y", [.byte(104), .byte(105)]).bytesValue == [104, 105])
        #expect(DBusValue.string("x").integerValue == nil)
        #expect(DBusValue.uint64(.max).integerValue == nil, "too large for Int64")
    }
}
