package import BackgrounderCore
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

    private static let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

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

    /// Starts watching for `path` (absolute) to be created, or moves its watch to the deepest
    /// directory that now exists. The watch is placed before the old one is removed, so no
    /// event is lost in between.
    /// - Returns: Whether a watch is on its directory or an ancestor. On failure a watch
    ///   already held for `path` is kept.
    @discardableResult
    package func watch(_ path: String) -> Bool {
        guard path.hasPrefix("/"), path.count > 1 else { return false }
        // A directory made while the watch climbed to its parent would go unseen: place it
        // again, lower, until the level below the watch is still missing afterwards.
        for _ in 0..<16 {
            guard let placed = place(path) else { return false }
            let below = Self.component(of: path, below: placed.directory)
            if placed.directory != Self.parent(of: path), let below, access(below, F_OK) == 0 {
                keep(path, placed)
                continue
            }
            keep(path, placed)
            return true
        }
        return watches[path] != nil
    }

    /// Whether `path` exists: a socket that is there needs no appearance to be tried.
    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Adds a watch on the deepest existing directory above `path`.
    private func place(_ path: String) -> (watch: Int32, directory: String)? {
        var directory = Self.parent(of: path)
        while true {
            let watch = inotify_add_watch(descriptor, directory, Self.mask)
            if watch >= 0 { return (watch, directory) }
            // Missing (or not a directory yet): watch for it to be made one level up.
            guard errno == ENOENT || errno == ENOTDIR, directory != "/" else { return nil }
            directory = Self.parent(of: directory)
        }
    }

    /// Records `placed` for `path`, and removes the watch it replaces if nothing else uses it.
    private func keep(_ path: String, _ placed: (watch: Int32, directory: String)) {
        let old = watches.updateValue(placed, forKey: path)
        if let old, old.watch != placed.watch, !watches.values.contains(where: { $0.watch == old.watch }) {
            _ = inotify_rm_watch(descriptor, old.watch)
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
        for path in moved {
            guard watch(path) else {
                // No watch can follow it (limits, permissions): report it, so the owner tries
                // the server now and falls back to its timer.
                unwatch(path)
                appeared.insert(path)
                continue
            }
            // Made along with its directory, before the new watch could see it.
            if watches[path]?.directory == Self.parent(of: path), Self.exists(path) { appeared.insert(path) }
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

    /// The path one level below `directory` on the way to `path`, if `directory` is above it.
    private static func component(of path: String, below directory: String) -> String? {
        let prefix = directory == "/" ? "/" : directory + "/"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard let name = rest.split(separator: "/").first else { return nil }
        return prefix + name
    }

    private static func child(_ name: String, of directory: String) -> String {
        directory == "/" ? "/" + name : directory + "/" + name
    }
}

extension SocketAppearance {
    /// The pause between two attempts to reach a server, on a thread of its own: the
    /// schedule's next wait, or, once that is spent and the server's socket is absent, until
    /// the socket is created. Returns early when the socket is created, and at cancellation.
    /// - Parameters:
    ///   - path: The server's socket, or `nil` when it has none to watch.
    ///   - schedule: Counts this failure; starts again when the socket appeared.
    ///   - announce: Told what the pause waits for (`retrying in 2 s`, `waiting for PATH to
    ///     appear`) once the watch is in place, just before the pause begins.
    package static func pause(
        before path: String?, schedule: inout RetrySchedule, announce: @escaping @Sendable (String) -> Void
    ) async {
        let appearance = path.flatMap { path in SocketAppearance().flatMap { $0.watch(path) ? $0 : nil } }
        // A socket that is there but refuses (a failed service's file, a name taken) is
        // created by nothing: it is retried on the timer.
        let absent = appearance != nil && path.map { !exists($0) } == true
        let wait = schedule.next(socketWatched: absent)
        guard let path, let appearance, let cancel = try? WakeupPipe() else {
            let timer = wait ?? RetrySchedule.unwatchedFallback
            announce("retrying in \(timer)")
            try? await BootSleep.sleep(for: timer)
            return
        }
        let deadline = wait.map { ContinuousClock.now + $0 }
        nonisolated(unsafe) let owned = appearance
        let appeared = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                startThread(named: "socket-wait") {
                    announce(wait.map { "retrying in \($0)" } ?? "waiting for \(path) to appear")
                    var appeared = false
                    while !appeared {
                        let left = deadline.map { max($0 - .now, .zero) }
                        if left == .zero { break }
                        guard cancel.wait(for: owned.descriptor, timeout: left) else { break }
                        appeared = owned.drain().contains(path)
                    }
                    continuation.resume(returning: appeared)
                }
            }
        } onCancel: {
            cancel.wake()
        }
        if appeared { schedule.reset() }
    }
}
