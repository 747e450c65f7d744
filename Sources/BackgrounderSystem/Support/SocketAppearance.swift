import BackgrounderCore
import BackgrounderProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Tells when the socket file of an absent server is created, so the daemon tries it again
/// then instead of on a timer (docs/decisions/0020-idle-wakeups.md).
///
/// One inotify instance watches the directory each socket would be created in, or, while that
/// directory does not exist either, its nearest existing ancestor (a session's runtime
/// directory appears at login). A server that starts, or restarts over a stale socket, binds a
/// new file there: `IN_CREATE`, or `IN_MOVED_TO` for one renamed into place. Events about
/// other files in those directories are read and ignored.
///
/// Not thread-safe: one owner thread uses it, or it lives inside one wait.
package final class SocketAppearance {
    /// The inotify instance, non-blocking: include it in a poll(2) set and call ``drain()``
    /// when it is readable.
    package let descriptor: Int32
    /// Each socket watched for: the watch that will see it, on its directory or an ancestor.
    private var watches: [String: (watch: Int32, directory: String)] = [:]

    private static let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)

    /// `nil` when no inotify instance can be made (the per-user limit): the caller then
    /// retries on its timer alone.
    package init?() {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The sockets watched for.
    package var paths: Set<String> { Set(watches.keys) }

    /// Starts watching for `path` (absolute) to be created.
    /// - Returns: Whether a watch could be placed on its directory or an ancestor.
    @discardableResult
    package func watch(_ path: String) -> Bool {
        guard path.hasPrefix("/"), path.count > 1 else { return false }
        unwatch(path)
        var directory = Self.parent(of: path)
        while true {
            let watch = inotify_add_watch(descriptor, directory, Self.mask)
            if watch >= 0 {
                watches[path] = (watch, directory)
                return true
            }
            // Missing (or not a directory yet): watch for it to be made one level up.
            guard errno == ENOENT || errno == ENOTDIR, directory != "/" else { return false }
            directory = Self.parent(of: directory)
        }
    }

    /// Stops watching for `path`; the directory's watch goes when no other path needs it.
    package func unwatch(_ path: String) {
        guard let entry = watches.removeValue(forKey: path) else { return }
        if !watches.values.contains(where: { $0.watch == entry.watch }) {
            _ = inotify_rm_watch(descriptor, entry.watch)
        }
    }

    /// Reads every waiting event.
    /// - Returns: The watched sockets that were created. They stay watched (a server that
    ///   appears may still refuse, and its next start creates the file again) until
    ///   ``unwatch(_:)``.
    package func drain() -> Set<String> {
        var appeared: Set<String> = []
        var moved: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: 8 * 1024)
        while true {
            let count = retryingInterrupted { read(descriptor, &buffer, buffer.count) }
            guard count > 0 else { break }  // EAGAIN: all read.
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (watch, eventMask, nameLength) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = String(
                    decoding: buffer[nameStart..<min(nameStart + nameLength, count)].prefix { $0 != 0 },
                    as: UTF8.self)
                offset = nameStart + nameLength
                if eventMask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // Events were lost: anything may have appeared.
                    appeared.formUnion(watches.keys)
                    moved.formUnion(watches.keys)
                    continue
                }
                for (path, entry) in watches where entry.watch == watch {
                    if eventMask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                        moved.insert(path)  // Its directory went: watch what is left above it.
                    } else if entry.directory == Self.parent(of: path) {
                        if name == Self.lastComponent(of: path) { appeared.insert(path) }
                    } else if path.hasPrefix(Self.child(name, of: entry.directory) + "/") {
                        moved.insert(path)  // A missing ancestor was made: move the watch down.
                    }
                }
            }
        }
        for path in moved where watch(path) {
            // Made along with its directory, before the new watch could see it.
            if watches[path]?.directory == Self.parent(of: path), access(path, F_OK) == 0 { appeared.insert(path) }
        }
        return appeared
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "/" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func lastComponent(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }

    private static func child(_ name: String, of directory: String) -> String {
        directory == "/" ? "/" + name : directory + "/" + name
    }
}

extension SocketAppearance {
    /// Waits on a thread of its own until `path` is created, `limit` passes, or the task is
    /// cancelled: the pause between two attempts to reach a server.
    /// - Parameters:
    ///   - path: The server's socket, or `nil` when it has none to watch.
    ///   - limit: The longest wait; `nil` (a watched socket only) waits for the file alone.
    package static func wait(for path: String?, atMost limit: Duration?) async {
        guard let path, let appearance = SocketAppearance(), appearance.watch(path) else {
            try? await BootSleep.sleep(for: limit ?? RetrySchedule.unwatchedFallback)
            return
        }
        guard let cancel = try? WakeupPipe() else {
            try? await BootSleep.sleep(for: limit ?? RetrySchedule.unwatchedFallback)
            return
        }
        let deadline = limit.map { ContinuousClock.now + $0 }
        nonisolated(unsafe) let owned = appearance
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                startThread(named: "socket-wait") {
                    while true {
                        let left = deadline.map { max($0 - .now, .zero) }
                        if left == .zero { break }
                        guard cancel.wait(for: owned.descriptor, timeout: left) else { break }
                        if owned.drain().contains(path) { break }
                    }
                    continuation.resume()
                }
            }
        } onCancel: {
            cancel.wake()
        }
    }
}
