import BackgrounderTestSupport
import Foundation
import Testing

/// README's "Write an app", run as written: the files its `readme-test: file PATH` blocks show,
/// beside a `../backgrounder` that is this checkout, then its own-package commands (a second
/// SwiftPM build, of the app and the part of this package it needs) against a private daemon
/// started with no `--bundles`, so it finds the app in `~/.local/share/backgrounder/bundles`.
///
/// The build takes about a minute and both cores (docs/TESTING.md has the figure), so it runs
/// among the serialized real-time suites, never beside one whose servers it would starve;
/// `BACKGROUNDER_TEST_OWN_PACKAGE=0` leaves it out.
extension RealTimeSuites {
    @Suite("README: an app in its own package", .timeLimit(.minutes(15)), .tearsDown)
    struct ReadmeOwnPackageTests {
        static let enabled = ProcessInfo.processInfo.environment["BACKGROUNDER_TEST_OWN_PACKAGE"] != "0"

        @Test(
            "Write an app: a package of its own depends on BackgroundKit, bundles itself and runs under the daemon",
            .enabled(if: enabled, "BACKGROUNDER_TEST_OWN_PACKAGE=0 leaves out the second package's build"))
        func ownPackage() async throws {
            let directory = try TemporaryDirectory(prefix: "readme-own")
            atTeardown { directory.remove() }
            let blocks = try ReadmeTests.blocks()
            let fm = FileManager.default

            // The README's Package.swift names `../backgrounder`: this checkout.
            try fm.createSymbolicLink(
                atPath: directory.appending("backgrounder"), withDestinationPath: Locations.repositoryRoot)
            let files = blocks.compactMap { block -> (String, [String])? in
                guard let marker = block.marker, marker.hasPrefix("file ") else { return nil }
                return (String(marker.dropFirst("file ".count)), block.lines)
            }
            #expect(
                files.map(\.0).sorted() == [
                    "Tracker/Package.swift", "Tracker/Sources/Tracker/Info.plist", "Tracker/Sources/Tracker/main.swift",
                ])
            for (path, lines) in files {
                let full = directory.appending(path)
                try fm.createDirectory(
                    atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try (lines.joined(separator: "\n") + "\n").write(toFile: full, atomically: true, encoding: .utf8)
            }
            // The same dependency versions as this checkout, so SwiftPM's cache serves them.
            let resolved = Locations.repositoryRoot + "/Package.resolved"
            if fm.fileExists(atPath: resolved) {
                try fm.copyItem(atPath: resolved, toPath: directory.appending("Tracker/Package.resolved"))
            }
            // A home of its own for `~/.local/share`, sharing SwiftPM's repository cache with the
            // real one (only that: clang refuses a module cache it reaches by two paths).
            let home = directory.appending("home")
            try fm.createDirectory(atPath: home + "/.cache", withIntermediateDirectories: true)
            let realHome = ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory()
            for shared in [".cache/org.swift.swiftpm", ".swiftpm"] where fm.fileExists(atPath: realHome + "/" + shared)
            {
                try fm.createSymbolicLink(atPath: home + "/" + shared, withDestinationPath: realHome + "/" + shared)
            }

            let daemon = try await DaemonProcess(
                directory: directory, environment: ["XDG_DATA_HOME": home + "/.local/share"])
            atTeardown { await daemon.stop() }

            let commands = blocks.filter { $0.marker == "own-package" }.flatMap(\.commands)
            #expect(commands.count >= 7, "only \(commands.count) commands in Write an app")
            let readme = ReadmeScript(skips: [], substitutions: [], waits: [], daemonOptions: [], bundleAll: "")
            let steps = readme.steps(commands)
            let statusFile = directory.appending("status")
            let scriptFile = directory.appending("own-package.sh")
            try readme.script(
                steps, workingDirectory: directory.path, statusFile: statusFile,
                daemonLog: directory.appending("unused.log")
            ).write(toFile: scriptFile, atomically: true, encoding: .utf8)
            let process = try ChildProcess(
                "/bin/bash", [scriptFile],
                environment: [
                    "HOME": home,
                    "PATH": Locations.productsDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ""),
                    "BACKGROUNDER_SOCKET": daemon.socketPath,
                ],
                logPath: directory.appending("own-package.log"))
            let finished = await process.waitForExit(timeout: .seconds(3600))
            if !finished { await process.stop(grace: .seconds(15)) }
            #expect(finished, "Write an app did not finish in an hour: \(process.output.suffix(3000))")

            let outcomes = ReadmeScript.outcomes((try? String(contentsOfFile: statusFile, encoding: .utf8)) ?? "")
            let output = String(process.output.suffix(4000))
            for step in steps {
                let line = step.command.line
                #expect(
                    outcomes[line]?.status == step.command.expectedStatus && outcomes[line]?.failures.isEmpty == true,
                    "README.md:\(line): `\(step.command.code)`: \(String(describing: outcomes[line]))\n\(output)")
            }
            let log =
                AppLogFile.text(atPath: daemon.stateDirectory + "/logs/org.example.tracker.log")
                ?? ""
            #expect(log.contains("Tracker launched"), "the app's log: \(log)")
        }
    }
}
