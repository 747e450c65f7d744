import BackgrounderCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where Backgrounder puts things when no flag says otherwise, following the XDG base
/// directory specification.
public enum DefaultPaths {
    /// The environment variable that names the control socket for every client and the daemon.
    public static let socketEnvironmentVariable = "BACKGROUNDER_SOCKET"

    /// `$BACKGROUNDER_SOCKET`, else `$XDG_RUNTIME_DIR/backgrounder/backgrounderd.sock`, else
    /// `/tmp/backgrounder-UID/backgrounderd.sock` (root in CI has no runtime directory).
    public static var socket: String {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[socketEnvironmentVariable], !path.isEmpty {
            return path
        }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return runtime + "/backgrounder/backgrounderd.sock"
        }
        return "/tmp/backgrounder-\(getuid())/backgrounderd.sock"
    }

    /// How ``socket`` is chosen, for `--help`.
    public static let socketRule =
        "$\(socketEnvironmentVariable), else $XDG_RUNTIME_DIR/backgrounder/backgrounderd.sock, else /tmp/backgrounder-UID/backgrounderd.sock"

    /// The socket an app's lead process reconnects on after the daemon restarted, beside the
    /// control socket (which is its owner's alone, while apps may run under uids of their own).
    public static func appSocket(forControlSocket control: String) -> String {
        (control.hasSuffix(".sock") ? String(control.dropLast(5)) : control) + "-apps.sock"
    }

    /// The socket where an app fetches descriptors the daemon opened for it (an audio
    /// stream's ring, a file a person shared with it), beside the control socket: the NIO
    /// control connection cannot carry them.
    public static func descriptorSocket(forControlSocket control: String) -> String {
        (control.hasSuffix(".sock") ? String(control.dropLast(5)) : control) + "-audio.sock"
    }

    /// `$XDG_STATE_HOME/backgrounder`, else `~/.local/state/backgrounder`.
    public static var stateDirectory: String {
        xdg("XDG_STATE_HOME", fallback: ".local/state") + "/backgrounder"
    }

    /// `$XDG_DATA_HOME/backgrounder/bundles`, else `~/.local/share/backgrounder/bundles`.
    public static var bundlesDirectory: String {
        xdg("XDG_DATA_HOME", fallback: ".local/share") + "/backgrounder/bundles"
    }

    /// Where the daemon looks for bundles when no `--bundles` is given, in order: the user's
    /// ``bundlesDirectory``, then `backgrounder/bundles` in each `$XDG_DATA_DIRS` entry
    /// (``BundleSearchPath``).
    public static var bundleDirectories: [String] {
        BundleSearchPath.directories(environment: ProcessInfo.processInfo.environment, home: NSHomeDirectory())
    }

    private static func xdg(_ variable: String, fallback: String) -> String {
        if let value = ProcessInfo.processInfo.environment[variable], value.hasPrefix("/") {
            return value
        }
        return NSHomeDirectory() + "/" + fallback
    }
}
