import BackgrounderBundles
import Foundation

/// Bundles of the `TestApp` fixture executable, each with its own identifier and behaviour
/// (`idle`, `never-end-task`, `ignore-sigterm`, `fork-children`, `crash`, and the others
/// Tests/Fixtures/TestApp reads).
public enum TestAppBundles {
    /// Assembles `directory/NAME.bundle` around the TestApp executable.
    /// - Parameters:
    ///   - name: The bundle's base name; the identifier is `org.backgrounder.tests.NAME` lowercased.
    ///   - behavior: What the app does (its `TestAppBehavior` key).
    ///   - exitsOnSuspend: `UIApplicationExitsOnSuspend`.
    ///   - modes: `UIBackgroundModes`.
    ///   - taskIdentifiers: `BGTaskSchedulerPermittedIdentifiers`.
    ///   - extraKeys: More keys for the behaviour to read (`TestAppTransferURLs`, `TestAppUploadBytes`).
    ///   - directory: The bundles directory.
    /// - Returns: The bundle identifier.
    @discardableResult
    public static func make(
        _ name: String,
        behavior: String = "idle",
        exitsOnSuspend: Bool = false,
        modes: [String] = [],
        microphoneUsage: Bool = false,
        taskIdentifiers: [String] = [],
        extraKeys: [String: InfoPlistValue] = [:],
        into directory: String
    ) throws -> String {
        let identifier = "org.backgrounder.tests.\(name.lowercased())"
        let plist = TestInfoPlist.text(
            identifier: identifier, name: name, executable: "TestApp", modes: modes,
            extra: """
                <key>UIApplicationExitsOnSuspend</key><\(exitsOnSuspend ? "true" : "false")/>
                <key>TestAppBehavior</key><string>\(behavior)</string>
                \(microphoneUsage ? "<key>NSMicrophoneUsageDescription</key><string>Tests recording.</string>" : "")
                \(taskIdentifiers.isEmpty ? "" : "<key>BGTaskSchedulerPermittedIdentifiers</key>")
                \(taskIdentifiers.isEmpty ? "" : "<array>\(taskIdentifiers.map { "<string>\($0)</string>" }.joined())</array>")
                \(InfoPlistValue.entries(extraKeys))
                """)
        let source = directory + "/.\(name).Info.plist"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try plist.write(toFile: source, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: source) }
        try BundleAssembler().assemble(
            name: name,
            executable: Locations.product("TestApp"),
            infoPlist: source,
            outputDirectory: directory
        )
        return identifier
    }
}
