import Foundation

/// What `bgctl --json` prints: `{"version": 1, KEY: VALUE}` (docs/JSON.md).
public enum CLIJSON {
    /// Why an output is not the documented shape.
    public struct ShapeError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Decodes the value under `key`, after checking the object has `version` 1 and nothing
    /// but `version` and `key`.
    public static func decode<T: Decodable>(_ type: T.Type, _ key: String, from output: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.userInfo[Envelope<T>.keyInfo] = key
        let envelope = try decoder.decode(Envelope<T>.self, from: Data(output.utf8))
        guard envelope.version == 1 else { throw ShapeError(description: "version \(envelope.version): \(output)") }
        guard Set(envelope.keys) == ["version", key] else {
            throw ShapeError(description: "keys \(envelope.keys.sorted()), not version and \(key): \(output)")
        }
        return envelope.value
    }

    /// `{"version": N, KEY: VALUE}`, decoded straight from the text: a detour through
    /// `JSONSerialization` would turn `false` into `0`.
    private struct Envelope<T: Decodable>: Decodable {
        static var keyInfo: CodingUserInfoKey { CodingUserInfoKey(rawValue: "CLIJSON.key")! }
        var version: Int
        var value: T
        var keys: [String]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            let key = decoder.userInfo[Self.keyInfo] as? String ?? ""
            version = try container.decode(Int.self, forKey: Key(stringValue: "version"))
            value = try container.decode(T.self, forKey: Key(stringValue: key))
            keys = container.allKeys.map(\.stringValue)
        }
    }

    /// The raw object under `key`, for checking which fields are present (and null).
    public static func raw(_ key: String, from output: String) throws -> Any {
        guard let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any],
            object["version"] as? Int == 1, let value = object[key]
        else { throw ShapeError(description: "not {version: 1, \(key)}: \(output)") }
        return value
    }
}

/// A command run to its end, with its two streams apart (`ChildProcess` merges them).
public struct CLIRun: Sendable, CustomStringConvertible {
    public var status: Int32
    public var standardOutput: String
    public var standardError: String

    public var description: String { "exit \(status); out: \(standardOutput); err: \(standardError)" }

    /// Runs `executable` with `arguments` and the test's environment plus `environment`, and
    /// waits up to 60 s for its exit. Standard error goes to a file of its own through a shell
    /// (`ChildProcess` writes everything to one), so nothing blocks a test thread on a pipe.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> CLIRun {
        let directory = try TemporaryDirectory(prefix: "cli-run")
        defer { directory.remove() }
        let errorPath = directory.appending("stderr")
        let process = try ChildProcess(
            "/bin/sh", ["-c", #"exec "$0" "$@" 2>"$CLI_RUN_STDERR""#, executable] + arguments,
            environment: environment.merging(["CLI_RUN_STDERR": errorPath]) { $1 },
            logPath: directory.appending("stdout"))
        guard await process.waitForExit(timeout: .seconds(60)), let status = process.terminationStatus else {
            process.signal(SIGKILL)
            throw ShapeError(description: "\(executable) \(arguments) did not exit within 60 s")
        }
        return CLIRun(
            status: status, standardOutput: process.output,
            standardError: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    /// Why a run failed to finish.
    public struct ShapeError: Error, CustomStringConvertible {
        public var description: String
    }
}
