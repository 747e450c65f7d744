import ArgumentParser
import BackgrounderBundles
import BackgrounderCore
import BackgrounderProtocol
import Dispatch
import Foundation

extension CompletionKind {
    /// Bundle identifiers, for every argument that names an app (`bgctl open <TAB>`).
    static var bundleIdentifier: CompletionKind {
        .custom { words, _, prefix in BundleIdentifierCompletion.candidates(words: words, prefix: prefix) }
    }
}

/// What a shell offers where an app's bundle identifier goes: the apps the daemon has
/// loaded, or, when no daemon answers in time, the apps in the default bundle directories
/// that pass the daemon's rules. Policy plug-ins are left out: no app command takes one.
///
/// Completion runs on every TAB, so it must be quick and quiet: it never prints an error,
/// and it waits for the daemon at most ``daemonWait`` (a hung daemon, or a socket unit
/// still starting one, must not freeze the shell).
enum BundleIdentifierCompletion {
    /// The longest a TAB waits for the daemon before the directories are read instead.
    static let daemonWait: Duration = .milliseconds(700)

    /// Identifiers beginning with `prefix`, sorted.
    /// - Parameters:
    ///   - words: The shell's words on the command line, to find a `--socket` there.
    ///   - prefix: What was typed of the identifier so far.
    static func candidates(words: [String], prefix: String) -> [String] {
        let socket = socketPath(in: words) ?? DefaultPaths.socket
        let identifiers = fromDaemon(socket: socket) ?? fromDirectories(DefaultPaths.bundleDirectories)
        return identifiers.filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// The value of a `--socket PATH` or `--socket=PATH` on the command line being completed.
    static func socketPath(in words: [String]) -> String? {
        var found: String?
        for (index, word) in words.enumerated() {
            if word == "--socket", index + 1 < words.count, !words[index + 1].isEmpty {
                found = words[index + 1]
            } else if word.hasPrefix("--socket="), word.count > "--socket=".count {
                found = String(word.dropFirst("--socket=".count))
            }
        }
        return found
    }

    /// The loaded bundles' identifiers as the daemon lists them, or `nil` when it does not
    /// answer within ``daemonWait``. The request runs on a thread of its own so that even a
    /// connect that blocks cannot hold the shell; the process exits after printing anyway.
    static func fromDaemon(socket: String) -> [String]? {
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            guard let client = try? ControlClient(socketPath: socket, timeout: daemonWait),
                case .bundles(let list)? = try? client.request(.bundles).body
            else { return }
            answer.set(
                list.bundles.compactMap { entry in
                    entry.status == .loaded && !isPolicy(bundleAt: entry.path) ? entry.id?.rawValue : nil
                })
        }
        thread.start()
        let (seconds, attoseconds) = daemonWait.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        guard done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success else { return nil }
        return answer.value
    }

    /// The identifiers of the apps in `directories` that pass the daemon's rules (the first
    /// of two with one identifier, as the daemon loads them); missing directories add none.
    static func fromDirectories(_ directories: [String]) -> [String] {
        BundleScanner().scan(directories: directories).catalog.loaded.values
            .filter { $0.manifest.kind == .application }
            .map(\.manifest.bundleIdentifier.rawValue)
    }

    /// Whether the bundle at `path` is a policy plug-in. The daemon's list does not say, so
    /// its Info.plist is read here (the daemon is on this machine); an unreadable one counts
    /// as an app.
    static func isPolicy(bundleAt path: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: path + "/Info.plist"),
            let parsed = try? ManifestValidator.manifest(fromInfoPlist: data, path: path)
        else { return false }
        return parsed.manifest.kind == .policy
    }

    /// The daemon's answer, handed from the request's thread to the waiting one.
    private final class Answer: Sendable {
        private let stored = Locked<[String]?>(nil)
        var value: [String]? { stored.withLock { $0 } }
        func set(_ identifiers: [String]) { stored.withLock { $0 = identifiers } }
    }
}
