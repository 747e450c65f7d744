package import BackgrounderCore
import Foundation
package import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A quota on each app's data directory under a root daemon: the directory is an ext4 file
/// system of the quota's size, in a sparse image (`STATE/volumes/ID.img`) loop-mounted on
/// `STATE/data/ID`. An app that fills it gets `ENOSPC` there and nowhere else; what it never
/// wrote takes no space. The kernel here has no quotas per uid (`CONFIG_QUOTA`) to do it
/// with, and a person's daemon cannot mount, so it has no volumes (its status says so).
///
/// Volumes stay mounted while the daemon runs and across a restart with `--live-restore` or
/// a crash: a directory that is already a mount point is used as it is, never mounted twice.
/// The daemon unmounts them when it ends its apps.
package struct DataVolumes: Sendable {
    /// `STATE/volumes`, the images (0700, the daemon's).
    package let directory: String
    /// Each volume's size in bytes.
    package let bytes: Int
    private let mkfs: String
    private let mount: String
    private let umount: String
    private let logger: Logger
    /// One mount or unmount at a time: two mounts of one image would corrupt it.
    private let serial = Locked(())

    /// Whether volumes can be made here, and if not why.
    /// - Parameters:
    ///   - bytes: The quota; 0 for none.
    ///   - ownUids: Whether apps run under uids of their own (a root daemon's sandbox).
    ///   - reapsOrphans: Whether a thread reaps every child of the daemon (signals), which
    ///     would take the helper programs' exit from under the daemon.
    package static func make(
        stateDirectory: String, bytes: Int, ownUids: Bool, reapsOrphans: Bool, logger: Logger
    ) -> Result<DataVolumes, DataVolumeUnavailable> {
        guard bytes > 0 else { return .failure(DataVolumeUnavailable("--app-data-quota 0")) }
        guard ownUids else {
            return .failure(
                DataVolumeUnavailable("only a root daemon, whose apps have uids of their own, can mount them"))
        }
        guard !reapsOrphans else {
            return .failure(DataVolumeUnavailable("--suspension signals reaps every child; use the cgroup freezer"))
        }
        guard access("/dev/loop-control", R_OK | W_OK) == 0 else {
            return .failure(DataVolumeUnavailable("no /dev/loop-control"))
        }
        func find(_ name: String) -> String? {
            ["/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"].map { $0 + name }.first { access($0, X_OK) == 0 }
        }
        guard let mkfs = find("mkfs.ext4"), let mount = find("mount"), let umount = find("umount") else {
            return .failure(DataVolumeUnavailable("mkfs.ext4, mount or umount is not installed"))
        }
        let directory = stateDirectory + "/volumes"
        do {
            try PrivateDirectory.prepareOwn(directory, purpose: "app data volume", mode: 0o700)
        } catch {
            return .failure(DataVolumeUnavailable("\(error)"))
        }
        return .success(
            DataVolumes(directory: directory, bytes: bytes, mkfs: mkfs, mount: mount, umount: umount, logger: logger))
    }

    /// The default quota: a quarter of the state directory's file system, so no one app can
    /// take the disk, and a person's music library still fits on any disk that holds it
    /// four times over; at least 64 MiB (a volume is sparse: it takes what is written).
    package static func defaultBytes(stateDirectory: String) -> Int {
        var stats = statvfs()
        guard statvfs(stateDirectory, &stats) == 0 else { return 0 }
        let quarter = UInt64(stats.f_blocks) * UInt64(stats.f_frsize) / 4
        return max(64 << 20, Int(quarter / 1_048_576 * 1_048_576))
    }

    /// The image of an app's volume.
    package func image(_ identifier: BundleID) -> String { directory + "/" + identifier.rawValue + ".img" }

    /// Mounts the app's volume on its data directory, making it on first use.
    /// - Parameters:
    ///   - path: The app's data directory (it exists).
    ///   - uid: The app's uid, which owns the volume's root.
    /// - Returns: Whether the directory is now a volume; `false` for one that holds files from
    ///   before volumes (they are not hidden under a mount; the log says so once).
    /// - Throws: ``DaemonError`` naming the image when it cannot be made or mounted.
    @discardableResult
    package func attach(_ path: String, identifier: BundleID, uid: UInt32) throws -> Bool {
        try serial.withLock { _ in try attachAlone(path, identifier: identifier, uid: uid) }
    }

    private func attachAlone(_ path: String, identifier: BundleID, uid: UInt32) throws -> Bool {
        if Self.isMountPoint(path) { return true }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        let image = image(identifier)
        guard entries.isEmpty else {
            if !FileManager.default.fileExists(atPath: image + ".unused") {
                logger.warning("\(identifier)'s data directory holds files from before data quotas; it has none")
                _ = FileManager.default.createFile(atPath: image + ".unused", contents: nil)
            }
            return false
        }
        if access(image, F_OK) != 0 {
            try make(image, uid: uid)
        }
        try run(mount, ["-o", "loop,nosuid,nodev,noexec", image, path], about: image)
        // The file system's own lost+found is not the app's business (fsck makes it again).
        rmdir(path + "/lost+found")
        return true
    }

    /// Unmounts the app's volume, if mounted (before its directory moves, or at stop).
    package func detach(_ path: String) throws {
        try serial.withLock { _ in
            guard Self.isMountPoint(path) else { return }
            try run(umount, [path], about: path)
        }
    }

    /// Unmounts every volume under `dataDirectory` (the daemon ends its apps).
    package func detachAll(under dataDirectory: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory)) ?? []
        for name in names {
            do {
                try detach(dataDirectory + "/" + name)
            } catch {
                logger.warning("\(error)")
            }
        }
    }

    /// A sparse file of the quota's size with an ext4 file system whose root is the app's.
    private func make(_ image: String, uid: UInt32) throws {
        let descriptor = open(image, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DaemonError(.directory, path: image, "cannot create: \(String(cString: strerror(errno)))")
        }
        let sized = ftruncate(descriptor, off_t(bytes)) == 0 ? 0 : errno
        close(descriptor)
        guard sized == 0 else {
            unlink(image)
            throw DaemonError(
                .directory, path: image, "cannot size to \(bytes) bytes: \(String(cString: strerror(sized)))")
        }
        do {
            // No reserved blocks (the app is the only writer), a small journal, and the
            // inode tables initialised lazily so a volume costs little until written.
            try run(
                mkfs,
                [
                    "-q", "-F", "-m", "0", "-J", "size=4",
                    "-E", "root_owner=\(uid):\(uid),lazy_itable_init=1,lazy_journal_init=1", image,
                ], about: image)
        } catch {
            unlink(image)
            throw error
        }
        logger.info("made a \(bytes / 1_048_576) MiB data volume \(image)")
    }

    /// Runs a helper program to its end.
    private func run(_ program: String, _ arguments: [String], about path: String) throws {
        let output = directory + "/helper.log"
        let pid = try ProcessLauncher.spawn(
            program, arguments: arguments, environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], output: output,
            truncate: true)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            let said = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw DaemonError(
                .directory, path: path,
                "\((program as NSString).lastPathComponent) failed (status \(status)): \(said.isEmpty ? "no output" : said)"
            )
        }
    }

    /// Whether a directory is the root of a mount: another device than its parent's.
    package static func isMountPoint(_ path: String) -> Bool {
        var own = stat()
        var parent = stat()
        guard lstat(path, &own) == 0, lstat(path + "/..", &parent) == 0 else { return false }
        return own.st_dev != parent.st_dev
    }
}

/// Why apps' data directories have no quota.
package struct DataVolumeUnavailable: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
