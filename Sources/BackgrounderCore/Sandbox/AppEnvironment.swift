/// The whole environment an app starts with: a short, documented list, and nothing else of
/// the daemon's own environment (docs/SANDBOX.md).
///
/// Secrets a daemon's environment may hold (tokens, session bus addresses, PulseAudio
/// cookies) are not an app's business, and an app's behaviour should not depend on how
/// the daemon happened to be started.
public enum AppEnvironment {
    /// The search path apps get, whatever the daemon's is.
    public static let searchPath = "/usr/local/bin:/usr/bin:/bin"
    /// `LANG` when the daemon has none.
    public static let defaultLanguage = "C.UTF-8"
    /// The descriptor the app's end of its control connection is on.
    public static let channelDescriptor: Int32 = 3

    /// Every variable an app may get, in the order the docs list them.
    public static let names = [
        "PATH", "HOME", "LANG", "TZ", "TMPDIR",
        "BACKGROUNDER_DATA_DIR", "BACKGROUNDER_BUNDLE_ID", "BACKGROUNDER_LAUNCH_REASON",
        "BACKGROUNDER_FD", "BACKGROUNDER_SOCKET",
    ]

    /// An app's environment.
    /// - Parameters:
    ///   - bundleIdentifier: `BACKGROUNDER_BUNDLE_ID`.
    ///   - launchReason: `BACKGROUNDER_LAUNCH_REASON`.
    ///   - dataDirectory: `BACKGROUNDER_DATA_DIR`, and `HOME`.
    ///   - temporaryDirectory: `TMPDIR`: the app's private temporary directory.
    ///   - socketPath: `BACKGROUNDER_SOCKET`: the control socket, from which BackgroundKit
    ///     derives the audio socket's path beside it.
    ///   - daemonEnvironment: The daemon's own environment; only `LANG` and `TZ` are taken from it.
    /// - Returns: Variable names and values.
    public static func make(
        bundleIdentifier: String,
        launchReason: LaunchReason,
        dataDirectory: String,
        temporaryDirectory: String,
        socketPath: String,
        daemonEnvironment: [String: String]
    ) -> [String: String] {
        var environment = [
            "PATH": searchPath,
            "HOME": dataDirectory,
            "LANG": daemonEnvironment["LANG"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultLanguage,
            "TMPDIR": temporaryDirectory,
            "BACKGROUNDER_DATA_DIR": dataDirectory,
            "BACKGROUNDER_BUNDLE_ID": bundleIdentifier,
            "BACKGROUNDER_LAUNCH_REASON": launchReason.rawValue,
            "BACKGROUNDER_FD": String(channelDescriptor),
            "BACKGROUNDER_SOCKET": socketPath,
        ]
        if let zone = daemonEnvironment["TZ"], !zone.isEmpty {
            environment["TZ"] = zone
        }
        return environment
    }
}
