import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct Logs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the end of an app's output (STATE/logs/ID.log and its rotation ID.log.1).",
        discussion: """
            The daemon keeps each app's standard output and error, up to its --app-log-limit \
            (16 MiB by default) in ID.log and one rotation in ID.log.1. bgctl reads them \
            directly, so run it as the daemon's user or root; it asks the daemon where its state \
            directory is. Control characters the app wrote are shown escaped unless --raw is given.

            Examples:
              bgctl logs hikerecorder
              bgctl logs backgroundplayer -n 200
              bgctl logs regionalerts --follow
            """
    )
    @OptionGroup var options: SocketOption
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String
    @Flag(name: .shortAndLong, help: "Keep printing what the app writes, across rotations, until interrupted.")
    var follow = false
    @Option(name: [.customShort("n"), .long], help: "How many lines to print first.") var lines = 50
    @Flag(help: "Print the app's bytes as they are, control characters included.") var raw = false

    func validate() throws {
        guard lines >= 0 else { throw ValidationError("--lines must be 0 or more, not \(lines)") }
    }

    func run() throws {
        // Resolved against the loaded bundles, it is a bundle identifier: safe in a path.
        let id = try options.resolveBundle(id)
        guard case .status(let status) = try options.request(.status) else { throw Failure.unexpectedReply }
        let path = status.stateDirectory + "/logs/\(id).log"
        let current = open(path, O_RDONLY | O_CLOEXEC)
        guard current >= 0 || follow else {
            throw Failure.failed(
                "cannot read \(path): \(String(cString: strerror(errno))) (run bgctl as the daemon's user or root)")
        }
        // The rotation first, then the current file: together they hold the latest output.
        var tail = AppLogTail.lastBytes(of: path + ".1")
        if current >= 0 { tail += AppLogTail.lastBytes(of: current) }
        let printer = AppLogTail.Printer(raw: raw)
        printer.printLast(lines, of: tail)
        guard follow else {
            if current >= 0 { close(current) }
            return
        }
        AppLogTail.follow(path, from: current, printer: printer)
    }
}

/// Reading an app log's end, and following it as the daemon appends and rotates it.
enum AppLogTail {
    /// At most this much is read from each file for the first lines: plenty for a screen.
    static let window = 1 << 20

    static func lastBytes(of path: String) -> [UInt8] {
        let file = open(path, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return [] }
        defer { close(file) }
        return lastBytes(of: file)
    }

    /// The last ``window`` bytes of an open file, leaving its offset at the end.
    static func lastBytes(of file: Int32) -> [UInt8] {
        let end = lseek(file, 0, SEEK_END)
        guard end > 0 else { return [] }
        let start = max(0, Int(end) - window)
        lseek(file, off_t(start), SEEK_SET)
        var bytes = [UInt8](repeating: 0, count: Int(end) - start)
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(file, $0.baseAddress! + done, $0.count - done) }
            guard count > 0 else { break }
            done += count
        }
        return Array(bytes[..<done])
    }

    /// Prints the app's text, one line at a time, escaped unless raw.
    struct Printer {
        var raw: Bool

        func printLast(_ count: Int, of bytes: [UInt8]) {
            guard count > 0 else { return }
            var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            if lines.last?.isEmpty == true { lines.removeLast() }
            for line in lines.suffix(count) { printLine(line) }
        }

        func printLine(_ line: ArraySlice<UInt8>) {
            let text = String(decoding: line, as: UTF8.self)
            // Unbuffered, so a follower sees each line as it comes.
            FileHandle.standardOutput.write(Data(((raw ? text : text.escapedForTerminal) + "\n").utf8))
        }
    }

    /// Prints what is appended to `path` until interrupted, reopening it when the daemon
    /// rotates it (the file at `path` is then another file) or it appears.
    static func follow(_ path: String, from start: Int32, printer: Printer) {
        var file = start
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            var moved = false
            if file >= 0 {
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }
                    moved = true
                    pending += buffer[..<count]
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        printer.printLine(pending[..<newline])
                        pending.removeSubrange(...newline)
                    }
                }
            }
            // Everything the old file held has been read: move to the new one if rotated.
            if !moved && isReplaced(file, by: path) {
                if !pending.isEmpty {
                    printer.printLine(pending[...])
                    pending = []
                }
                if file >= 0 { close(file) }
                file = open(path, O_RDONLY | O_CLOEXEC)
                continue
            }
            if !moved { usleep(200_000) }
        }
    }

    /// Whether the file at `path` is no longer the open one (rotated, or created since).
    private static func isReplaced(_ file: Int32, by path: String) -> Bool {
        var named = stat()
        guard stat(path, &named) == 0 else { return false }
        var open = stat()
        guard file >= 0, fstat(file, &open) == 0 else { return true }
        return named.st_ino != open.st_ino || named.st_dev != open.st_dev
    }
}
