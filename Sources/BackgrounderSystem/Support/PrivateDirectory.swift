package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Creates or checks a directory that group and others may not list or write (the socket
/// and state directories: anyone who can reach the control socket can drive the daemon).
///
/// Modes are set only on directories created here. An existing directory is never
/// changed: it is someone's decision, so one that is too open, or closed to apps that must
/// pass through it, is refused with the command that fixes it.
package enum PrivateDirectory {
    /// Makes sure `path` exists, belongs to the daemon's uid and is private.
    /// - Parameters:
    ///   - path: The directory.
    ///   - purpose: What it is, for messages (`socket`, `--state-dir`).
    ///   - mode: The mode for directories created here: `0700`, or `0711` when apps running
    ///     under uids of their own must pass through it.
    /// - Throws: ``DaemonError`` naming the path, its mode and what to do.
    package static func prepare(_ path: String, purpose: String, mode: mode_t = 0o700) throws {
        try create(path, purpose: purpose, mode: mode)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw DaemonError(
                .directory, path: path, "cannot stat the \(purpose) directory: \(String(cString: strerror(errno)))")
        }
        guard info.st_uid == geteuid() else {
            throw DaemonError(
                .directory, path: path, "the \(purpose) directory belongs to uid \(info.st_uid), not to us")
        }
        let actual = info.st_mode & 0o7777
        let octal = String(actual, radix: 8)
        let wanted = String(mode, radix: 8)
        if actual & 0o066 != 0 {
            throw DaemonError(
                .directory, path: path,
                "the \(purpose) directory has mode 0\(octal): others may list or change it; run chmod 0\(wanted) \(path)"
            )
        }
        if mode & 0o001 != 0 && actual & 0o001 == 0 {
            throw DaemonError(
                .directory, path: path,
                "the \(purpose) directory has mode 0\(octal): apps, which run under uids of their own, cannot pass through it to their data directory and the audio socket; run chmod 0\(wanted) \(path), or start with --sandbox off"
            )
        }
    }

    /// Creates or fixes one of the daemon's own directories inside its state directory
    /// (`logs`, `data`, `tmp`). Nobody else can create entries in the state directory, so an
    /// existing one was made by the daemon (perhaps an earlier release, under other rules) and
    /// is given `mode`; it is opened without following links and must be the daemon's.
    /// - Throws: ``DaemonError`` naming the path.
    package static func prepareOwn(_ path: String, purpose: String, mode: mode_t) throws {
        if mkdir(path, mode) != 0 && errno != EEXIST {
            throw DaemonError(
                .directory, path: path, "cannot create the \(purpose) directory: \(String(cString: strerror(errno)))")
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw DaemonError(
                .directory, path: path, "cannot open the \(purpose) directory: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_uid == geteuid() else {
            throw DaemonError(
                .directory, path: path, "the \(purpose) directory does not belong to uid \(geteuid())")
        }
        guard info.st_mode & 0o7777 == mode || fchmod(descriptor, mode) == 0 else {
            throw DaemonError(
                .directory, path: path,
                "cannot set the \(purpose) directory to 0\(String(mode, radix: 8)): \(String(cString: strerror(errno)))"
            )
        }
    }

    /// Creates `path` and any missing parents with `mode` (not left to the umask), leaving
    /// every directory that already exists as it is.
    private static func create(_ path: String, purpose: String, mode: mode_t) throws {
        var missing: [String] = []
        var current = path
        var info = stat()
        while !current.isEmpty && current != "/" && stat(current, &info) != 0 && errno == ENOENT {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() {
            if mkdir(directory, mode) == 0 {
                // Ours: the mode is exactly what was asked for, whatever the umask.
                chmod(directory, mode)
            } else if errno != EEXIST {
                throw DaemonError(
                    .directory, path: directory,
                    "cannot create the \(purpose) directory: \(String(cString: strerror(errno)))")
            }
        }
    }
}
