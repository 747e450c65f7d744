import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

/// Something bgctl could not do: a stable code for scripts, a message for people, and the
/// exit status README's table promises.
///
/// Text mode prints `bgctl: MESSAGE` on standard error; with `--json` it prints
/// `{"version":1,"error":{"code":...,"message":...,"exitStatus":...}}` there instead.
struct Failure: Error {
    /// The daemon's error code (`notFound`, `notAuthorized`, ...) or bgctl's own
    /// (`usage`, `notRunning`, `notASocket`, `socketPathTooLong`, `unreachable`, `failed`).
    var code: String
    /// What went wrong and what to do, naming what the person typed.
    var message: String
    /// 1 refused or failed, 3 the daemon cannot be reached, 64 a wrong command line.
    var exitStatus: Int32

    /// The daemon refused: its message, without its code (the code goes to JSON).
    static func refused(_ error: ProtocolError) -> Failure {
        Failure(code: error.code.rawValue, message: error.message, exitStatus: 1)
    }

    /// The daemon could not be reached or stopped answering.
    static func unreachable(_ error: ControlClientError) -> Failure {
        let code =
            switch error {
            case .daemonNotRunning: "notRunning"
            case .notASocket: "notASocket"
            case .socketPathTooLong: "socketPathTooLong"
            default: "unreachable"
            }
        return Failure(code: code, message: error.description, exitStatus: 3)
    }

    /// The command line is wrong.
    static func usage(_ message: String) -> Failure { Failure(code: "usage", message: message, exitStatus: 64) }

    /// Something else failed.
    static func failed(_ message: String) -> Failure { Failure(code: "failed", message: message, exitStatus: 1) }

    /// The daemon answered with a reply of another kind than the request calls for: a daemon
    /// of another version, most likely.
    static var unexpectedReply: Failure {
        failed("the daemon's reply does not answer the request (is bgctl the same version as backgrounderd?)")
    }

    /// Prints the failure on standard error, as text or JSON.
    func report(json: Bool) {
        guard json else { return printError("bgctl: \(message)") }
        let error: JSONValue = .object([
            "code": .string(code), "message": .string(message), "exitStatus": .number(Double(exitStatus)),
        ])
        FileHandle.standardError.write(
            Data((JSONOutput.text(.object(["version": .number(1), "error": error])) + "\n").utf8))
    }
}

/// `--json` output: one object per command, `{"version": 1, KEY: VALUE}`, every documented
/// field present (absent values as `null`), keys sorted. docs/JSON.md lists the shapes.
enum JSONOutput {
    /// The shape's version; raised only when a shape changes incompatibly.
    static let version = 1

    /// Prints `{"version": 1, key: value}` on standard output.
    static func print(_ key: String, _ value: some Encodable) throws {
        let encoded = try JSONValueEncoder().encode(value)
        Swift.print(text(.object(["version": .number(Double(version)), key: encoded])))
    }

    /// `{"version": 1, key: value}` on one line: one object a line, for a stream a script
    /// reads as it comes (`--follow`).
    static func line(_ key: String, _ value: some Encodable) throws -> String {
        let encoded = try JSONValueEncoder().encode(value)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let line = try encoder.encode(JSONValue.object(["version": .number(Double(version)), key: encoded]))
        return String(decoding: line, as: UTF8.self)
    }

    /// Pretty, sorted JSON.
    static func text(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
