import Foundation

/// Pads columns so a table lines up in a terminal. Every cell is escaped first: cells hold
/// text apps control (task names, titles, identifiers), which must not steer the terminal.
/// - Parameters:
///   - rows: The header, then the rows.
///   - width: When given, the last column is cut (ending in `…`) so no line is longer.
func table(_ rows: [[String]], width: Int? = nil) -> String {
    let rows = rows.map { $0.map(\.escapedForTerminal) }
    guard let count = rows.map(\.count).max() else { return "" }
    var widths = [Int](repeating: 0, count: count)
    for row in rows {
        for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    return rows.map { row in
        var line = row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
        if let width, line.count > width { line = String(line.prefix(max(0, width - 1))) + "…" }
        return line
    }.joined(separator: "\n")
}

/// `$COLUMNS` when it is set and wider, else 80: tables fit a classic terminal by default.
var terminalWidth: Int {
    ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init).map { max(80, $0) } ?? 80
}

/// The last part of a bundle identifier (`hello` for `org.backgrounder.samples.hello`), which
/// every command accepts as long as it is unique.
func shortName(_ identifier: String) -> String {
    identifier.split(separator: ".").last.map(String.init) ?? identifier
}

/// Writes a line to standard error, escaped: the daemon's errors quote what apps sent.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message.escapedForTerminal + "\n").utf8))
}
