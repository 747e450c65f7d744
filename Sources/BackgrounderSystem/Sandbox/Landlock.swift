import CSandbox

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's Landlock LSM at the best ABI it offers: which rights a ruleset can handle,
/// and building one for an app.
///
/// Rights a kernel does not know are masked out of everything (the compatibility rule from
/// the kernel's Landlock documentation), so one ruleset description works from ABI 1 up and
/// simply restricts less on older kernels; `bgctl status` names the ABI in force.
package struct Landlock: Sendable {
    /// The ABI in use (1 or more).
    package let abi: Int32

    /// The kernel's Landlock, or why there is none.
    package static func probe() -> Result<Landlock, DaemonError> {
        let abi = bg_landlock_abi()
        guard abi > 0 else {
            let reason =
                switch -abi {
                case ENOSYS: "the kernel has no Landlock (CONFIG_SECURITY_LANDLOCK)"
                case EOPNOTSUPP: "Landlock is built in but not enabled (add landlock to the lsm= boot parameter)"
                default: "landlock_create_ruleset: \(String(cString: strerror(-abi)))"
                }
            return .failure(DaemonError(.configuration, path: "landlock", reason))
        }
        return .success(Landlock(abi: abi))
    }

    /// Every file-system right this ABI knows, all handled (so denied unless a rule allows it).
    package var handledFileSystem: UInt64 {
        var rights = Access.allOfABI1
        if abi >= 2 { rights |= BG_LANDLOCK_ACCESS_FS_REFER }
        if abi >= 3 { rights |= BG_LANDLOCK_ACCESS_FS_TRUNCATE }
        if abi >= 5 { rights |= BG_LANDLOCK_ACCESS_FS_IOCTL_DEV }
        return rights
    }

    /// Abstract Unix sockets and signals are scoped to the app's own domain from ABI 6: it
    /// can neither signal nor reach through an abstract socket anything outside its sandbox.
    package var scoped: UInt64 {
        abi >= 6 ? BG_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | BG_LANDLOCK_SCOPE_SIGNAL : 0
    }

    /// Builds a ruleset allowing exactly `rules`.
    /// - Returns: The ruleset's descriptor (close-on-exec); the caller closes it.
    /// - Throws: ``DaemonError`` naming the path a required rule could not be made for.
    package func ruleset(_ rules: [SandboxProfile.Rule]) throws -> Int32 {
        // Network rights (ABI 4) are deliberately not handled: apps may use the network.
        let ruleset = bg_landlock_create_ruleset(handledFileSystem, 0, scoped)
        guard ruleset >= 0 else {
            throw DaemonError(
                .configuration, path: "landlock", "landlock_create_ruleset: \(String(cString: strerror(-ruleset)))")
        }
        do {
            for rule in rules { try allow(rule, in: ruleset) }
        } catch {
            close(ruleset)
            throw error
        }
        return ruleset
    }

    /// The rights on /proc the profile gives, as this kernel handles them: added by the child
    /// for the /proc it mounts for itself, which no rule made in the daemon can name.
    package var procReadAccess: UInt64 { Access.read & handledFileSystem }

    private func allow(_ rule: SandboxProfile.Rule, in ruleset: Int32) throws {
        let descriptor = bg_open_path(rule.path)
        guard descriptor >= 0 else {
            if rule.optional && errno == ENOENT { return }
            throw DaemonError(
                .configuration, path: rule.path, "cannot open for a Landlock rule: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw DaemonError(.configuration, path: rule.path, "cannot stat: \(String(cString: strerror(errno)))")
        }
        var rights = rule.access & handledFileSystem
        // Only file rights may be given on a file that is not a directory (else EINVAL).
        if info.st_mode & S_IFMT != S_IFDIR { rights &= Access.fileOnly }
        guard rights != 0 else { return }
        let result = bg_landlock_allow_path(ruleset, descriptor, rights)
        guard result == 0 else {
            throw DaemonError(
                .configuration, path: rule.path, "landlock_add_rule: \(String(cString: strerror(-result)))")
        }
    }

    /// Sets of rights the profile is written in.
    package enum Access {
        package static let allOfABI1: UInt64 =
            BG_LANDLOCK_ACCESS_FS_EXECUTE | BG_LANDLOCK_ACCESS_FS_WRITE_FILE | BG_LANDLOCK_ACCESS_FS_READ_FILE
            | BG_LANDLOCK_ACCESS_FS_READ_DIR | BG_LANDLOCK_ACCESS_FS_REMOVE_DIR | BG_LANDLOCK_ACCESS_FS_REMOVE_FILE
            | BG_LANDLOCK_ACCESS_FS_MAKE_CHAR | BG_LANDLOCK_ACCESS_FS_MAKE_DIR | BG_LANDLOCK_ACCESS_FS_MAKE_REG
            | BG_LANDLOCK_ACCESS_FS_MAKE_SOCK | BG_LANDLOCK_ACCESS_FS_MAKE_FIFO | BG_LANDLOCK_ACCESS_FS_MAKE_BLOCK
            | BG_LANDLOCK_ACCESS_FS_MAKE_SYM

        /// The rights that apply to a file itself rather than to a directory's entries.
        package static let fileOnly: UInt64 =
            BG_LANDLOCK_ACCESS_FS_EXECUTE | BG_LANDLOCK_ACCESS_FS_WRITE_FILE | BG_LANDLOCK_ACCESS_FS_READ_FILE
            | BG_LANDLOCK_ACCESS_FS_TRUNCATE | BG_LANDLOCK_ACCESS_FS_IOCTL_DEV

        /// Reading files and listing directories.
        package static let read: UInt64 = BG_LANDLOCK_ACCESS_FS_READ_FILE | BG_LANDLOCK_ACCESS_FS_READ_DIR

        /// Reading, and executing programs and libraries.
        package static let readExecute: UInt64 = read | BG_LANDLOCK_ACCESS_FS_EXECUTE

        /// A device to read from and write to (/dev/null).
        package static let readWriteDevice: UInt64 =
            read | BG_LANDLOCK_ACCESS_FS_WRITE_FILE | BG_LANDLOCK_ACCESS_FS_TRUNCATE | BG_LANDLOCK_ACCESS_FS_IOCTL_DEV

        /// A device to read from (/dev/urandom).
        package static let readDevice: UInt64 = read | BG_LANDLOCK_ACCESS_FS_IOCTL_DEV

        /// Everything an app does in its own directories except executing what it wrote
        /// there, and making device nodes.
        package static let ownDirectory: UInt64 =
            read | BG_LANDLOCK_ACCESS_FS_WRITE_FILE | BG_LANDLOCK_ACCESS_FS_REMOVE_DIR
            | BG_LANDLOCK_ACCESS_FS_REMOVE_FILE | BG_LANDLOCK_ACCESS_FS_MAKE_DIR | BG_LANDLOCK_ACCESS_FS_MAKE_REG
            | BG_LANDLOCK_ACCESS_FS_MAKE_SOCK | BG_LANDLOCK_ACCESS_FS_MAKE_FIFO | BG_LANDLOCK_ACCESS_FS_MAKE_SYM
            | BG_LANDLOCK_ACCESS_FS_REFER | BG_LANDLOCK_ACCESS_FS_TRUNCATE
    }
}
