import BackgrounderTestSupport
import Foundation
import Testing

/// The daemon's layers as Package.swift declares them (docs/decisions/0018): the rules the
/// build's import check enforces hold only if the declared dependencies say them, so they
/// are checked here, and the picture in docs/ARCHITECTURE.md is the one Package.swift gives.
@Suite("The architecture Package.swift declares")
struct ArchitectureTests {
    /// The targets of the daemon's layers, by name, with their direct dependencies among them.
    struct Graph {
        var dependencies: [String: Set<String>]
        /// The targets under `Sources/Capabilities/`.
        var capabilities: Set<String>

        /// Edges implied by others removed: what remains is what a reader needs to see.
        var reduced: [(from: String, to: String)] {
            var edges: [(String, String)] = []
            for (target, direct) in dependencies {
                for dependency in direct {
                    let implied = direct.contains { other in
                        other != dependency && reaches(from: other, to: dependency)
                    }
                    if !implied { edges.append((target, dependency)) }
                }
            }
            return edges.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        }

        func reaches(from start: String, to goal: String) -> Bool {
            var seen: Set<String> = []
            var stack = [start]
            while let next = stack.popLast() {
                if next == goal { return true }
                guard seen.insert(next).inserted else { continue }
                stack.append(contentsOf: dependencies[next] ?? [])
            }
            return false
        }

        /// The Mermaid flowchart docs/ARCHITECTURE.md shows.
        var mermaid: String {
            var lines = ["```mermaid", "flowchart TD"]
            lines.append("    subgraph capabilities")
            lines += capabilities.sorted().map { "        \($0)" }
            lines.append("    end")
            lines += reduced.map { "    \($0.from) --> \($0.to)" }
            lines.append("```")
            return lines.joined(separator: "\n")
        }
    }

    /// The layers: every Swift target under Sources/ that the daemon is built from.
    static let layers: Set<String> = [
        "BackgrounderCore", "BackgrounderProtocol", "BackgrounderBundles", "BackgrounderSystem",
        "BackgrounderAppCore", "BackgrounderApps", "BackgrounderDaemon", "backgrounderd",
    ]

    /// Package.swift as SwiftPM reads it (`swift package dump-package`).
    static func load() async throws -> Graph {
        let scratch = try TemporaryDirectory(prefix: "dump")
        defer { scratch.remove() }
        let result = try await Tool.run(
            "/usr/bin/env",
            [
                "swift", "package", "--package-path", Locations.repositoryRoot, "--scratch-path", scratch.path,
                "dump-package",
            ])
        try #require(result.status == 0, "swift package dump-package failed: \(result.output)")
        let start = try #require(result.output.firstIndex(of: "{"), "no JSON in: \(result.output)")
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(result.output[start...].utf8))
        let capabilities = Set(
            manifest.targets.filter { $0.path?.hasPrefix("Sources/Capabilities/") == true }.map(\.name))
        let members = layers.union(capabilities)
        var dependencies: [String: Set<String>] = [:]
        for target in manifest.targets where members.contains(target.name) {
            dependencies[target.name] = Set(target.dependencies.compactMap(\.name)).intersection(members)
        }
        return Graph(dependencies: dependencies, capabilities: capabilities)
    }

    /// What dump-package says of a target that this test reads.
    struct Manifest: Decodable {
        struct Target: Decodable {
            var name: String
            var path: String?
            var dependencies: [Dependency]
        }
        /// `{"byName": [NAME, null]}`, `{"target": [NAME, null]}` or `{"product": [NAME, PACKAGE, ...]}`.
        struct Dependency: Decodable {
            var name: String?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: AnyKey.self)
                for key in container.allKeys where key.stringValue != "product" {
                    var values = try container.nestedUnkeyedContainer(forKey: key)
                    name = try values.decodeIfPresent(String.self)
                }
            }
        }
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        var targets: [Target]
    }

    @Test(
        "each capability depends on the contract and the system layer, never on another capability or the core's type")
    func capabilitiesStandAlone() async throws {
        let graph = try await Self.load()
        #expect(graph.capabilities.count >= 7, "capability targets: \(graph.capabilities.sorted())")
        for capability in graph.capabilities.sorted() {
            let direct = graph.dependencies[capability] ?? []
            #expect(direct.contains("BackgrounderAppCore"), "\(capability) does not receive the contract")
            let forbidden = direct.intersection(graph.capabilities.union(["BackgrounderApps", "BackgrounderDaemon"]))
            #expect(forbidden.isEmpty, "\(capability) depends on \(forbidden.sorted())")
            #expect(!graph.reaches(from: capability, to: "BackgrounderApps"), "\(capability) reaches the core's type")
        }
    }

    @Test("the system layer knows no app core; the contract knows no implementation; the daemon composes all")
    func layersPointDown() async throws {
        let graph = try await Self.load()
        let above = graph.capabilities.union(["BackgrounderAppCore", "BackgrounderApps", "BackgrounderDaemon"])
        for target in above.sorted() {
            #expect(!graph.reaches(from: "BackgrounderSystem", to: target), "the system layer reaches \(target)")
        }
        for target in graph.capabilities.union(["BackgrounderApps", "BackgrounderDaemon"]).sorted() {
            #expect(!graph.reaches(from: "BackgrounderAppCore", to: target), "the contract reaches \(target)")
        }
        for capability in graph.capabilities.sorted() {
            #expect(!graph.reaches(from: "BackgrounderApps", to: capability), "the core reaches \(capability)")
            #expect(
                graph.dependencies["BackgrounderDaemon"]?.contains(capability) == true,
                "the daemon does not compose \(capability)")
        }
    }

    @Test("docs/ARCHITECTURE.md shows the target graph Package.swift declares")
    func pictureIsCurrent() async throws {
        let graph = try await Self.load()
        let document = try String(contentsOfFile: Locations.repositoryRoot + "/docs/ARCHITECTURE.md", encoding: .utf8)
        #expect(
            document.contains(graph.mermaid),
            "docs/ARCHITECTURE.md is stale; its target graph should read:\n\(graph.mermaid)")
    }

    /// Where the daemon's code lives: everything under Sources/ but the clients' (BackgroundKit,
    /// bgctl, bgbundle) and the C modules.
    static let daemonSources = [
        "BackgrounderCore", "BackgrounderProtocol", "BackgrounderBundles", "BackgrounderSystem",
        "BackgrounderAppCore", "BackgrounderApps", "Capabilities", "BackgrounderDaemon", "backgrounderd",
    ]

    /// Every line of the daemon's Swift sources that uses `call` outside a comment, as
    /// "Sources/folder/file:line".
    static func daemonLines(using call: String) throws -> [String] {
        var found: [String] = []
        for folder in daemonSources {
            let root = Locations.repositoryRoot + "/Sources/" + folder
            let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            #expect(!files.isEmpty, "\(root) has no files")
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains(call) && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    found.append("Sources/\(folder)/\(file):\(number + 1)")
                }
            }
        }
        return found
    }

    @Test("the daemon sleeps on its boot timer: no Task.sleep, whose libdispatch timer starts a 1 Hz pool monitor")
    func sleepsOnTheBootTimer() throws {
        let offenders = try Self.daemonLines(using: "Task.sleep(")
        #expect(offenders.isEmpty, "use BootSleep.sleep (docs/decisions/0020-idle-wakeups.md): \(offenders)")
    }

    @Test("the daemon locks with Locked, not Synchronization's Mutex, whose futex ThreadSanitizer cannot see")
    func locksWhatTheSanitizerSees() throws {
        let offenders = try Self.daemonLines(using: "Mutex")
        #expect(offenders.isEmpty, "use Locked (docs/decisions/0012-locked.md): \(offenders)")
    }
}
