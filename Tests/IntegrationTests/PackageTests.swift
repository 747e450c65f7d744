import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `scripts/package.sh` on the products this test run was built with: the archive it makes,
/// and, as root, that archive installed with dpkg, used, and removed again. The build tree
/// is only read; the package is made in a temporary directory.
@Suite("The Debian package", .timeLimit(.minutes(10)), .tearsDown)
struct PackageTests {
    static let dpkg = "/usr/bin/dpkg"
    static let dpkgDeb = "/usr/bin/dpkg-deb"

    /// Whether this machine already has a backgrounder package, which a test must not replace.
    static let alreadyInstalled: Bool = {
        guard let result = try? Tool.run(dpkg, ["-s", "backgrounder"]) else { return false }
        return result.status == 0 && result.output.contains("Status: install ok installed")
    }()

    /// Runs `scripts/package.sh --configuration debug` on the built products.
    /// - Returns: The path of the `.deb` it made in `directory`.
    static func makePackage(in directory: TemporaryDirectory) async throws -> String {
        let result = try await Tool.run(
            "/bin/bash",
            [
                Locations.repositoryRoot + "/scripts/package.sh", "--configuration", "debug",
                "--products", Locations.productsDirectory, "--output", directory.path,
            ])
        try #require(result.status == 0, "scripts/package.sh failed: \(result.output)")
        let package = try #require(
            result.output.split(separator: "\n").last.map(String.init), "no package named: \(result.output)")
        #expect(package.hasPrefix(directory.path + "/backgrounder_0.1.0_") && package.hasSuffix(".deb"), "\(package)")
        return package
    }

    /// Files the package must hold, without the leading `.`.
    static let expectedFiles = [
        "/usr/bin/backgrounderd", "/usr/bin/bgctl", "/usr/bin/bgbundle",
        "/usr/lib/systemd/user/backgrounderd.service", "/usr/lib/systemd/user/backgrounderd.socket",
        "/usr/share/man/man1/backgrounderd.1.gz", "/usr/share/man/man1/bgctl.1.gz",
        "/usr/share/bash-completion/completions/bgctl", "/usr/share/zsh/vendor-completions/_bgctl",
        "/usr/share/fish/vendor_completions.d/bgctl.fish",
        "/usr/share/backgrounder/bundles/Hello.bundle/Info.plist",
        "/usr/share/backgrounder/bundles/Hello.bundle/Hello",
        "/usr/share/backgrounder/bundles/HikeRecorder.bundle/HikeRecorder",
        "/usr/share/backgrounder/bundles/LowPowerPolicy.bundle/libLowPowerPolicy.so",
    ]

    @Test("package.sh makes a .deb: programs, user units, man pages, completions and valid sample bundles, all root's")
    func archive() async throws {
        let directory = try TemporaryDirectory(prefix: "deb")
        defer { directory.remove() }
        let package = try await Self.makePackage(in: directory)

        let info = try await Tool.run(Self.dpkgDeb, ["--info", package])
        #expect(info.status == 0, "\(info.output)")
        for field in ["Package: backgrounder", "Version: 0.1.0", "Maintainer: ", "Description: "] {
            #expect(info.output.contains(field), "\(field) in \(info.output)")
        }
        let architecture = try await Tool.run(Self.dpkg, ["--print-architecture"]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(info.output.contains("Architecture: \(architecture)"), "\(info.output)")
        // The C libraries the daemon and the samples link, found by dpkg-shlibdeps.
        let depends = try #require(info.output.split(separator: "\n").first { $0.contains("Depends:") })
        for library in ["libgps", "libpulse", "libsqlite3", "libsndfile", "libc6"] {
            #expect(depends.contains(library), "\(library) in \(depends)")
        }

        let contents = try await Tool.run(Self.dpkgDeb, ["--contents", package])
        #expect(contents.status == 0, "\(contents.output)")
        let lines = contents.output.split(separator: "\n")
        for file in Self.expectedFiles {
            #expect(lines.contains { $0.hasSuffix(" ." + file) }, "\(file) is missing from the package")
        }
        // The samples' command lines are on PATH, in lower case: links into their bundles.
        for name in ["BackgroundPlayer", "HikeRecorder", "RegionAlerts", "FeedReader", "Podcasts"] {
            let link = " ./usr/bin/\(name.lowercased()) -> ../share/backgrounder/bundles/\(name).bundle/\(name)"
            #expect(lines.contains { $0.hasSuffix(link) }, "\(link) is missing from the package")
        }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.contains(" root/root ") }, "not all root's: \(contents.output)")
        #expect(!lines.contains { $0.hasPrefix("-rwxrwx") || $0.hasPrefix("drwxrwx") }, "group-writable files")

        // What is inside: the unit runs the packaged daemon on the default search path, and
        // every sample bundle passes the daemon's own rules.
        let tree = directory.appending("tree")
        let extracted = try await Tool.run(Self.dpkgDeb, ["-x", package, tree])
        #expect(extracted.status == 0, "\(extracted.output)")
        let service = try String(
            contentsOfFile: tree + "/usr/lib/systemd/user/backgrounderd.service", encoding: .utf8)
        #expect(
            service.split(separator: "\n").contains("ExecStart=/usr/bin/backgrounderd --live-restore"), "\(service)")
        let bundles = tree + "/usr/share/backgrounder/bundles"
        let names = try FileManager.default.contentsOfDirectory(atPath: bundles).sorted()
        #expect(names.contains("Hello.bundle") && names.contains("LowPowerPolicy.bundle"), "\(names)")
        let validation = try await Tool.run(
            Locations.product("bgctl"), ["validate"] + names.map { bundles + "/" + $0 })
        #expect(validation.status == 0, "\(validation.output)")
        #expect(validation.output.contains("ok org.backgrounder.samples.hello"), "\(validation.output)")
    }

    @Test(
        "dpkg -i installs it: man -w, completions, systemd-analyze verify, bgctl --help; dpkg -r removes it all",
        .enabled(if: getuid() == 0, "installing a package needs root; dpkg -i was not tried"),
        .enabled(if: !alreadyInstalled, "a backgrounder package is already installed here; it is left alone"))
    func installAndRemove() async throws {
        let directory = try TemporaryDirectory(prefix: "debi")
        defer { directory.remove() }
        let package = try await Self.makePackage(in: directory)

        let install = try await Tool.run(Self.dpkg, ["-i", package])
        defer { Self.remove() }
        try #require(install.status == 0, "dpkg -i: \(install.output)")

        for page in ["bgctl", "backgrounderd"] {
            let where_ = try await Tool.run("/usr/bin/man", ["-w", page])
            #expect(where_.status == 0, "man -w \(page): \(where_.output)")
            #expect(where_.output.contains("/usr/share/man/man1/\(page).1"), "\(where_.output)")
        }
        let manual = try await Tool.run("/usr/bin/man", ["-P", "cat", "bgctl"])
        #expect(
            manual.output.contains("authorize"),
            "the page documents the subcommands: exit \(manual.status), \(manual.output)")

        for file in [
            "/usr/share/bash-completion/completions/bgctl", "/usr/share/zsh/vendor-completions/_bgctl",
            "/usr/share/fish/vendor_completions.d/bgctl.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: file), "\(file)")
        }
        let bash = try String(contentsOfFile: "/usr/share/bash-completion/completions/bgctl", encoding: .utf8)
        #expect(bash.contains("open"))
        // bash itself, as a person's TAB runs it: the subcommand, then an installed sample's
        // identifier, found in /usr/share/backgrounder/bundles with no daemon running.
        let noDaemon = directory.appending("nobody.sock")
        #expect(try await Self.bashCompletes(["bgctl", "op"], socket: noDaemon).contains("open"))
        let identifiers = try await Self.bashCompletes(
            ["bgctl", "open", "org.backgrounder.samples.he"], socket: noDaemon)
        #expect(identifiers == ["org.backgrounder.samples.hello"], "\(identifiers)")

        let units = ["/usr/lib/systemd/user/backgrounderd.service", "/usr/lib/systemd/user/backgrounderd.socket"]
        if FileManager.default.isExecutableFile(atPath: SystemdServiceTests.analyze) {
            let verify = try await Tool.run(SystemdServiceTests.analyze, ["verify"] + units)
            #expect(verify.status == 0, "\(verify.output)")
            #expect(!verify.output.contains("backgrounderd."), "\(verify.output)")
        }

        let help = try await Tool.run("/usr/bin/bgctl", ["--help"])
        #expect(help.status == 0, "\(help.output)")
        #expect(help.output.contains("open"), "\(help.output)")
        // A sample's command line, as a Debian user types it.
        let recorder = try await Tool.run("/usr/bin/hikerecorder", ["--help"])
        #expect(recorder.status == 0 && recorder.output.hasPrefix("usage: HikeRecorder"), "\(recorder.output)")
        let player = try await Tool.run("/usr/bin/backgroundplayer", ["--help"])
        #expect(player.status == 0 && player.output.contains("BackgroundPlayer play PATH"), "\(player.output)")
        let daemonHelp = try await Tool.run("/usr/bin/backgrounderd", ["--help"])
        #expect(daemonHelp.output.contains("/usr/share"), "\(daemonHelp.output)")

        let removal = try await Tool.run(Self.dpkg, ["-r", "backgrounder"])
        #expect(removal.status == 0, "dpkg -r: \(removal.output)")
        for file in Self.expectedFiles + ["/usr/share/backgrounder"] {
            #expect(!FileManager.default.fileExists(atPath: file), "\(file) is still there after dpkg -r")
        }
    }

    /// What bash's completion for `words` (the last one being completed) offers, with the
    /// installed completion script and no bash-completion package needed.
    static func bashCompletes(_ words: [String], socket: String) async throws -> [String] {
        let script = """
            source /usr/share/bash-completion/completions/bgctl
            COMP_WORDS=(\(words.joined(separator: " ")))
            COMP_CWORD=\(words.count - 1)
            COMP_LINE="\(words.joined(separator: " "))"
            COMP_POINT=${#COMP_LINE}
            _bgctl
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try await Tool.run(
            "/usr/bin/env", ["BACKGROUNDER_SOCKET=\(socket)", "/bin/bash", "--norc", "-c", script])
        #expect(result.status == 0, "\(result.output)")
        return result.output.split(separator: "\n").map(String.init)
    }

    /// `dpkg -r backgrounder`, whatever happened before: the machine is left as it was.
    static func remove() {
        _ = try? Tool.run(dpkg, ["-r", "backgrounder"])
    }
}
