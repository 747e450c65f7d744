import Foundation

/// README.md's fenced code blocks and the shell commands in them, read as a person reads them.
///
/// A block may follow an HTML comment `<!-- readme-test: WORDS -->` (invisible when the README
/// is rendered) that tells the test what it is: `file PATH` for a file the own-package test
/// writes, `own-package` for the commands of "Write an app".
struct ReadmeBlock: Sendable {
    /// The fence's language: `sh`, `bash`, `console`, `swift`, `xml`...
    var language: String
    /// The words of the `readme-test:` comment just before the fence, if any.
    var marker: String?
    /// The README line number (from 1) of the block's first line.
    var firstLine: Int
    /// The lines between the fences, with the fence's indentation removed.
    var lines: [String]

    /// Whether its lines are commands.
    var isShell: Bool { ["sh", "bash", "console", "shell"].contains(language) }

    /// The commands, each with the README line it starts on: one a line, a line ending in `\`
    /// joined to the next; blank lines and comment lines skipped; in a `console` block only the
    /// lines after a `$ ` prompt.
    var commands: [ReadmeCommand] {
        var commands: [ReadmeCommand] = []
        var pending: (line: Int, text: String)?
        for (offset, raw) in lines.enumerated() {
            var line = raw
            if pending == nil {
                let trimmed = line.drop { $0 == " " }
                if language == "console" {
                    guard trimmed.hasPrefix("$ ") else { continue }
                    line = String(trimmed.dropFirst(2))
                } else if trimmed.isEmpty || trimmed.hasPrefix("#") {
                    continue
                }
            }
            let text = (pending?.text ?? "") + line
            let start = pending?.line ?? firstLine + offset
            if text.hasSuffix("\\") {
                pending = (start, String(text.dropLast()))
            } else {
                pending = nil
                commands.append(ReadmeCommand(line: start, text: text))
            }
        }
        if let pending { commands.append(ReadmeCommand(line: pending.line, text: pending.text)) }
        return commands
    }
}

/// One command line of the README, as written.
struct ReadmeCommand: Sendable, Hashable {
    /// The README line number it starts on.
    var line: Int
    /// The line as written, comment included.
    var text: String

    /// The line without its trailing `# comment` (a `#` after a blank, outside quotes).
    var code: String {
        var quote: Character?
        var previous: Character = " "
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "#", previous == " " || previous == "\t" {
                return String(text[..<index]).trimmingTrailingBlanks
            }
            previous = character
        }
        return text.trimmingTrailingBlanks
    }

    /// The comment after the code, if any.
    var comment: String { String(String(text.dropFirst(code.count)).drop { $0 == " " || $0 == "\t" || $0 == "#" }) }

    /// The exit status the README states for it (`# ... exit status N`), else 0.
    var expectedStatus: Int32 {
        guard let range = comment.range(of: "exit status ") else { return 0 }
        return Int32(comment[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }
}

/// Reads the blocks of a Markdown document.
enum ReadmeDocument {
    /// Every fenced block, in order.
    static func blocks(in text: String) -> [ReadmeBlock] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [ReadmeBlock] = []
        var index = 0
        while index < lines.count {
            let indentation = lines[index].prefix { $0 == " " }.count
            let opening = lines[index].dropFirst(indentation)
            guard opening.hasPrefix("```") else {
                index += 1
                continue
            }
            let language = String(opening.dropFirst(3).prefix { $0 != " " })
            let marker = lines[..<index].last { !$0.allSatisfy { $0 == " " } }.flatMap(Self.marker(in:))
            var body: [String] = []
            index += 1
            while index < lines.count, !lines[index].dropFirst(indentation).hasPrefix("```") {
                body.append(String(lines[index].dropFirst(min(indentation, lines[index].prefix { $0 == " " }.count))))
                index += 1
            }
            blocks.append(
                ReadmeBlock(language: language, marker: marker, firstLine: index - body.count + 1, lines: body))
            index += 1
        }
        return blocks
    }

    /// The words of `<!-- readme-test: WORDS -->`, if the line is that comment.
    private static func marker(in line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        let prefix = "<!-- readme-test: "
        guard trimmed.hasPrefix(prefix), trimmed.hasSuffix("-->") else { return nil }
        return String(trimmed.dropFirst(prefix.count).dropLast(3)).trimmingCharacters(in: .whitespaces)
    }
}

extension String {
    fileprivate var trimmingTrailingBlanks: String {
        var result = self
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
