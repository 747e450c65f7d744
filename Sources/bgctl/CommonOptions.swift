import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

/// `--socket`: where the daemon is, for every subcommand that asks it something.
struct SocketOption: ParsableArguments {
    @Option(
        name: .customLong("socket"),
        help: ArgumentHelp("The daemon's control socket (default: \(DefaultPaths.socketRule)).", valueName: "PATH"))
    var socketOption: String?

    /// `--socket`, else the default the daemon also uses.
    var socket: String { socketOption ?? DefaultPaths.socket }

    /// Connects, or fails saying the daemon is not running and how to start it (exit 3).
    func connect(timeout: Duration = .seconds(10)) throws -> ControlClient {
        do {
            return try ControlClient(socketPath: socket, timeout: timeout)
        } catch {
            throw Failure.unreachable(error)
        }
    }

    /// Sends one request and returns the reply; the daemon's refusal becomes a ``Failure``.
    /// - Parameter timeout: How long to wait for the reply.
    func request(_ body: ClientMessage.Body, timeout: Duration = .seconds(10)) throws -> DaemonMessage.Body {
        let client = try connect(timeout: timeout)
        let reply: DaemonMessage
        do {
            reply = try client.request(body)
        } catch {
            throw Failure.unreachable(error)
        }
        if case .error(let error) = reply.body { throw Failure.refused(error) }
        return reply.body
    }

    /// The bundle identifier a person meant: the full identifier, a unique suffix (`hello`) or
    /// a bundle's name (`Hello`), matched against the daemon's loaded bundles. An ambiguous
    /// one lists the candidates; an unknown one says which is nearest. Exits 1 for either.
    /// - Parameter unloaded: Whether a full identifier no loaded bundle has is passed on as
    ///   typed: an app removed since may still have grants or notifications stored.
    func resolveBundle(_ typed: String, unloaded: Bool = false) throws -> BundleID {
        guard case .bundles(let list) = try request(.bundles) else { throw Failure.unexpectedReply }
        let candidates = list.bundles.compactMap { entry -> BundleReference.Candidate? in
            guard entry.status == .loaded, let identifier = entry.id else { return nil }
            return BundleReference.Candidate(identifier: identifier.rawValue, name: entry.name ?? "")
        }
        switch BundleReference.resolve(typed, among: candidates) {
        case .resolved(let identifier):
            return BundleID(identifier)
        case .ambiguous(let identifiers):
            throw Failure(
                code: "ambiguous",
                message:
                    "'\(typed)' matches \(identifiers.count) bundles: \(identifiers.joined(separator: ", ")); give one of them",
                exitStatus: 1)
        case .unknown where unloaded && typed.contains(".") && BundleIdentifierRules.problem(with: typed) == nil:
            return BundleID(typed)
        case .unknown(let suggestion):
            let hint = suggestion.map { "; did you mean \($0)?" } ?? "; `bgctl bundles` lists them"
            throw Failure(code: "notFound", message: "no loaded bundle is '\(typed)'\(hint)", exitStatus: 1)
        }
    }
}

/// Options every subcommand that prints a daemon's answer takes: `--socket` and `--json`.
@dynamicMemberLookup
struct CommonOptions: ParsableArguments {
    @OptionGroup var daemon: SocketOption

    @Flag(help: "Print JSON instead of text, for scripts (docs/JSON.md has the shapes).")
    var json = false

    subscript<T>(dynamicMember keyPath: KeyPath<SocketOption, T>) -> T { daemon[keyPath: keyPath] }

    func request(_ body: ClientMessage.Body, timeout: Duration = .seconds(10)) throws -> DaemonMessage.Body {
        try daemon.request(body, timeout: timeout)
    }
    func resolveBundle(_ typed: String, unloaded: Bool = false) throws -> BundleID {
        try daemon.resolveBundle(typed, unloaded: unloaded)
    }

    /// Prints `value` under `key` in the versioned JSON object (docs/JSON.md).
    func printJSON(_ key: String, _ value: some Encodable) throws {
        try JSONOutput.print(key, value)
    }
}
