import Testing

/// How the README test reads Markdown, on small documents: which lines are commands, what is a
/// comment, which block a marker names, and what a substitution touches.
@Suite("README extraction", .timeLimit(.minutes(5)), .tearsDown)
struct ReadmeBlocksTests {
    static let document = """
        Text, then a shell block:

        ```sh
        # a comment line is not a command
        bgctl open ID; bgctl home   # two commands on one line

        bgctl push ID --payload '{"a": "# not a comment"}'
        bgctl validate Bundles/Bad.bundle   # refused: exit status 1
        long command \\
          continued
        ```

        <!-- readme-test: file Tracker/Package.swift -->
        ```swift
        let x = 1
        ```

        1. In a list:

           ```console
           $ bgctl status
           backgrounderd 0.1.0
           ```
        """

    @Test("shell blocks give one command a line, skipping blanks and comments and joining a trailing backslash")
    func commands() {
        let blocks = ReadmeDocument.blocks(in: Self.document)
        #expect(blocks.map(\.language) == ["sh", "swift", "console"])
        let commands = blocks[0].commands
        #expect(commands.map(\.line) == [5, 7, 8, 9])
        #expect(commands[0].code == "bgctl open ID; bgctl home")
        #expect(commands[0].comment == "two commands on one line")
        #expect(commands[1].code == ##"bgctl push ID --payload '{"a": "# not a comment"}'"##)
        #expect(commands[2].expectedStatus == 1)
        #expect(commands[0].expectedStatus == 0)
        #expect(commands[3].code == "long command   continued")
    }

    @Test("a marker comment names the block after it; a console block's commands follow a $ prompt")
    func markersAndConsole() {
        let blocks = ReadmeDocument.blocks(in: Self.document)
        #expect(blocks[0].marker == nil)
        #expect(blocks[1].marker == "file Tracker/Package.swift")
        #expect(blocks[1].lines == ["let x = 1"])
        #expect(blocks[2].commands.map(\.code) == ["bgctl status"])
        #expect(blocks[2].commands.map(\.line) == [21])
    }

    @Test("substitutions replace whole words only; the daemon and the bundle plugin are rewritten")
    func rewriting() {
        let script = ReadmeScript(
            skips: [],
            substitutions: [
                .init(text: "TASK_ID", replacement: "task", word: true),
                .init(text: "ID", replacement: "org.example.app", word: true),
            ],
            waits: [], daemonOptions: ["--socket", "/tmp/a b"], bundleAll: "bundle-all")
        #expect(script.rewrite("bgctl simulate task ID TASK_ID") == "bgctl simulate task org.example.app task")
        #expect(script.rewrite("echo BUNDLE_ID IDs org.ID") == "echo BUNDLE_ID IDs org.ID")
        #expect(script.rewrite("swift package --allow-writing-to-package-directory bundle") == "bundle-all")
        #expect(
            script.rewrite(".build/debug/backgrounderd --bundles Bundles &")
                == "readme_daemon .build/debug/backgrounderd --bundles Bundles '--socket' '/tmp/a b'")
    }

    @Test("the status records give each line its final status and the failures within it")
    func outcomes() {
        let outcomes = ReadmeScript.outcomes(
            "begin 5\nfail 5 1\nend 5 0\nbegin 7\nend 7 3\nwaited 7 9\nbegin 9\n")
        #expect(outcomes[5] == ReadmeScript.Outcome(status: 0, failures: [1]))
        #expect(outcomes[7]?.status == 3)
        #expect(outcomes[9]?.waitedInVain == true)
        #expect(outcomes[9]?.status == nil)
    }
}
