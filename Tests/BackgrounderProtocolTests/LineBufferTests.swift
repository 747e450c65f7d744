import Testing

@testable import BackgrounderProtocol

@Suite("Line buffer", .timeLimit(.minutes(5)))
struct LineBufferTests {
    @Test("lines split at newlines, CR dropped, partial lines kept")
    func splitting() throws {
        var buffer = LineBuffer(maximumLineLength: 100)
        buffer.append(Array("one\r\ntwo\nthr".utf8))
        #expect(try buffer.nextLine() == Array("one".utf8))
        #expect(try buffer.nextLine() == Array("two".utf8))
        #expect(try buffer.nextLine() == nil)
        buffer.append(Array("ee\n".utf8))
        #expect(try buffer.nextLine() == Array("three".utf8))
        #expect(try buffer.nextLine() == nil)
    }

    @Test("a line past the cap throws lineTooLong")
    func cap() {
        var buffer = LineBuffer(maximumLineLength: 8)
        buffer.append(Array("123456789".utf8))
        #expect {
            _ = try buffer.nextLine()
        } throws: { error in
            (error as? ProtocolError)?.code == .lineTooLong
        }
    }
}
