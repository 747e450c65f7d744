import Foundation

/// The README's commands as one bash script, run in order as a person would type them (a `cd`
/// or a variable carries on), with each command's exit status recorded for the test.
///
/// What the test changes is listed here and in docs/TESTING.md: skips (commands that install
/// packages, need sudo or a service manager, or would run SwiftPM on the tree `swift test`
/// holds locked), substitutions (placeholders such as `ID`, the example URLs), and waits the
/// test adds before a command, where a person would wait for something to happen.
struct ReadmeScript {
    /// A command the test does not run, by how it starts.
    struct Skip: Sendable {
        var prefix: String
        var reason: String
    }

    /// Text replaced in a command before it runs. `word` replaces only whole words.
    struct Substitution: Sendable {
        var text: String
        var replacement: String
        var word: Bool = false
    }

    /// Shell the test runs before a command that starts with `prefix`; when it fails, the
    /// command is reported as not reached in time.
    struct Wait: Sendable {
        var prefix: String
        var shell: String
    }

    /// A README command and what became of it.
    struct Step: Sendable {
        var command: ReadmeCommand
        /// The line the script runs, or `nil` when skipped.
        var runs: String?
        var skippedBecause: String?
    }

    var skips: [Skip]
    var substitutions: [Substitution]
    var waits: [Wait]
    /// Options appended to a command that starts `backgrounderd`: the private socket, state
    /// directory, gpsd and PulseAudio.
    var daemonOptions: [String]
    /// The shell that replaces `swift package --allow-writing-to-package-directory bundle` with
    /// no product named.
    var bundleAll: String

    /// Every command, run or skipped.
    func steps(_ commands: [ReadmeCommand]) -> [Step] {
        commands.map { command in
            if let skip = skips.first(where: { command.code.hasPrefix($0.prefix) }) {
                return Step(command: command, runs: nil, skippedBecause: skip.reason)
            }
            return Step(command: command, runs: rewrite(command.code), skippedBecause: nil)
        }
    }

    /// The line the script runs for a command's code.
    func rewrite(_ code: String) -> String {
        var line = code
        for substitution in substitutions {
            line = Self.replace(substitution.text, with: substitution.replacement, in: line, word: substitution.word)
        }
        if line == "swift package --allow-writing-to-package-directory bundle" { return bundleAll }
        let program = line.prefix { $0 != " " }
        if program == "backgrounderd" || program.hasSuffix("/backgrounderd") {
            // Started in the background like the README's `&` line, so the next commands reach
            // it; the daemon an earlier line started is stopped first.
            var command = line
            if command.hasSuffix("&") { command.removeLast() }
            let options = daemonOptions.map(Self.quoted).joined(separator: " ")
            return "readme_daemon \(command.trimmingCharacters(in: .whitespaces)) \(options)"
        }
        return line
    }

    /// The script: helpers, then each command, run in `workingDirectory`, between two records in `statusFile`.
    func script(_ steps: [Step], workingDirectory: String, statusFile: String, daemonLog: String) -> String {
        var script = """
            cd \(Self.quoted(workingDirectory)) || exit 1
            readme_status=\(Self.quoted(statusFile))
            readme_line=0
            trap 'echo "fail $readme_line $?" >> "$readme_status"' ERR
            # A deadline that only catches a hang: on a loaded machine a download and its
            # filing took over a minute.
            readme_wait() {
                local deadline=$((SECONDS + 300))
                while [ "$SECONDS" -lt "$deadline" ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
                return 1
            }
            readme_daemon_pid=
            readme_stop_daemon() {
                [ -n "$readme_daemon_pid" ] || return 0
                kill -TERM "$readme_daemon_pid"; wait "$readme_daemon_pid"; readme_daemon_pid=
            }
            readme_daemon() {
                readme_stop_daemon
                "$@" >> \(Self.quoted(daemonLog)) 2>&1 &
                readme_daemon_pid=$!
                readme_wait bgctl status
            }
            trap readme_stop_daemon EXIT

            """
        for step in steps {
            guard let runs = step.runs else { continue }
            let line = step.command.line
            for wait in waits where step.command.code.hasPrefix(wait.prefix) {
                script += "readme_wait \(wait.shell) || echo \"waited $readme_line \(line)\" >> \"$readme_status\"\n"
            }
            script += "readme_line=\(line); echo \"begin \(line)\" >> \"$readme_status\"\n"
            script += runs + "\n"
            script += "echo \"end \(line) $?\" >> \"$readme_status\"\n"
        }
        return script
    }

    /// What the status file says of each line: its final status and the statuses of the
    /// commands in it that failed.
    struct Outcome: Sendable, Hashable {
        var status: Int32?
        var failures: [Int32] = []
        var waitedInVain = false
    }

    /// Reads the records the script wrote.
    static func outcomes(_ records: String) -> [Int: Outcome] {
        var outcomes: [Int: Outcome] = [:]
        for record in records.split(separator: "\n") {
            let fields = record.split(separator: " ").map(String.init)
            guard fields.count >= 2 else { continue }
            switch fields[0] {
            case "begin":
                if let line = Int(fields[1]) { outcomes[line] = outcomes[line] ?? Outcome() }
            case "end":
                if fields.count == 3, let line = Int(fields[1]) {
                    outcomes[line, default: Outcome()].status = Int32(fields[2])
                }
            case "fail":
                if fields.count == 3, let line = Int(fields[1]), let status = Int32(fields[2]) {
                    outcomes[line, default: Outcome()].failures.append(status)
                }
            case "waited":
                if fields.count == 3, let line = Int(fields[2]) {
                    outcomes[line, default: Outcome()].waitedInVain = true
                }
            default:
                break
            }
        }
        return outcomes
    }

    /// `text` in single quotes for bash.
    static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private static func replace(_ text: String, with replacement: String, in line: String, word: Bool) -> String {
        guard word else { return line.replacingOccurrences(of: text, with: replacement) }
        let pattern = "(?<![A-Za-z0-9_.])" + NSRegularExpression.escapedPattern(for: text) + "(?![A-Za-z0-9_])"
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return line }
        return expression.stringByReplacingMatches(
            in: line, range: NSRange(line.startIndex..., in: line),
            withTemplate: NSRegularExpression.escapedTemplate(for: replacement))
    }
}
