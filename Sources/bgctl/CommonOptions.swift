import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

/// Options every subcommand takes.
struct CommonOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The daemon's control socket (default: $BACKGROUNDER_SOCKET, else the daemon's default).", valueName: "PATH"
        ))
    var socket: String = DefaultPaths.socket

    @Flag(help: "Print JSON instead of text, for scripts.")
    var json = false

    /// Connects, or exits with a message saying the daemon is not running and how to start it.
    func connect() throws -> ControlClient {
        do {
            return try ControlClient(socketPath: socket)
        } catch {
            printError("bgctl: \(error)")
            throw ExitCode(3)
        }
    }

    /// Sends one request and returns the reply, exiting with the daemon's error if it sent one.
    func request(_ body: ClientMessage.Body) throws -> DaemonMessage.Body {
        let client = try connect()
        let reply: DaemonMessage
        do {
            reply = try client.request(body)
        } catch {
            printError("bgctl: \(error)")
            throw ExitCode(3)
        }
        if case .error(let error) = reply.body {
            printError("bgctl: the daemon refused: \(error)")
            throw ExitCode.failure
        }
        return reply.body
    }

    /// The bundle identifier a person meant: the full identifier, a unique suffix (`hello`) or
    /// a bundle's name (`Hello`), matched against the daemon's loaded bundles. An ambiguous
    /// one lists the candidates; an unknown one says which is nearest. Exits 1 for either.
    func resolveBundle(_ typed: String) throws -> String {
        guard case .bundles(let list) = try request(.bundles) else { return typed }
        let candidates = list.bundles.compactMap { entry -> BundleReference.Candidate? in
            guard entry.status == .loaded, let identifier = entry.id else { return nil }
            return BundleReference.Candidate(identifier: identifier, name: entry.name ?? "")
        }
        switch BundleReference.resolve(typed, among: candidates) {
        case .resolved(let identifier):
            return identifier
        case .ambiguous(let identifiers):
            printError(
                "bgctl: '\(typed)' matches \(identifiers.count) bundles: \(identifiers.joined(separator: ", ")); give one of them"
            )
            throw ExitCode.failure
        case .unknown(let suggestion):
            let hint = suggestion.map { "; did you mean \($0)?" } ?? "; `bgctl bundles` lists them"
            printError("bgctl: no loaded bundle is '\(typed)'\(hint)")
            throw ExitCode.failure
        }
    }

    /// Prints a value as pretty JSON on standard output.
    func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// Writes a line to standard error, escaped: the daemon's errors quote what apps sent.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message.escapedForTerminal + "\n").utf8))
}

/// Pads columns so a table lines up in a terminal. Every cell is escaped first: cells hold
/// text apps control (task names, titles, identifiers), which must not steer the terminal.
func table(_ rows: [[String]]) -> String {
    let rows = rows.map { $0.map(\.escapedForTerminal) }
    guard let width = rows.map(\.count).max() else { return "" }
    var widths = [Int](repeating: 0, count: width)
    for row in rows {
        for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
    }
    return rows.map { row in
        row.enumerated().map { index, cell in
            index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}
