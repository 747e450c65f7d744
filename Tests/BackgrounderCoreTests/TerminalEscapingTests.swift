import BackgrounderCore
import Testing

@Suite("Escaping text for a terminal", .timeLimit(.minutes(5)))
struct TerminalEscapingTests {
    @Test("an OSC title change and a screen clear come out as visible text, with no ESC or BEL byte")
    func hostileTaskName() {
        let name = "\u{1b}]0;pwned\u{07}\u{1b}[2J"
        let escaped = name.escapedForTerminal
        #expect(escaped == "\\u{1B}]0;pwned\\u{7}\\u{1B}[2J")
        #expect(!escaped.utf8.contains(0x1B))
        #expect(!escaped.utf8.contains(0x07))
    }

    @Test("every C0 control, DEL and every C1 control is escaped; a line stays one line")
    func everyControl() {
        let controls = (0x00...0x1F).map { Unicode.Scalar($0)! } + (0x7F...0x9F).map { Unicode.Scalar($0)! }
        for scalar in controls {
            let escaped = "a\(Character(scalar))b".escapedForTerminal
            #expect(escaped.hasPrefix("a\\") && escaped.hasSuffix("b"), "U+\(String(scalar.value, radix: 16))")
            #expect(escaped.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }, "\(escaped)")
        }
        #expect("fake\nERROR line".escapedForTerminal == "fake\\nERROR line")
        #expect("a\tb\rc".escapedForTerminal == "a\\tb\\rc")
        #expect("\u{9B}31m".escapedForTerminal == "\\u{9B}31m")
        #expect("\u{7F}".escapedForTerminal == "\\u{7F}")
    }

    @Test("bidi overrides and line separators are escaped")
    func displayReordering() {
        #expect("abc\u{202E}fed".escapedForTerminal == "abc\\u{202E}fed")
        #expect("x\u{2066}y\u{2069}".escapedForTerminal == "x\\u{2066}y\\u{2069}")
        #expect("x\u{2028}y".escapedForTerminal == "x\\u{2028}y")
    }

    @Test("ordinary text passes unchanged, non-ASCII letters and emoji included")
    func ordinaryText() {
        for text in ["org.backgrounder.samples.hello", "Jezero Bled – Ojstrica", "Čaj ☕ 🎵 ñ", "", "C:\\path"] {
            #expect(text.escapedForTerminal == text)
        }
    }
}
