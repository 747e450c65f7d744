import CGlobalExecutor
import Foundation

/// The entry point: sends Swift Concurrency's jobs to libdispatch's overcommit queue, then
/// runs ``Backgrounderd``.
///
/// Why (docs/decisions/0020-idle-wakeups.md): on Linux the default global executor runs on
/// libdispatch's default global queue, whose pool libdispatch then monitors with a timer on
/// its manager thread every second, for the life of the process: an idle daemon woke once a
/// second with nothing to do. The overcommit queue shares its work between its threads the
/// same way, adds one when all are blocked, and is not monitored.
@main
enum Main {
    /// Whether Swift Concurrency runs on the overcommit queue.
    nonisolated(unsafe) static var onOvercommitQueue = false

    static func main() {
        // Before any task exists: every job from here on goes to the overcommit queue.
        // Written before the task below starts, so its reads see it.
        onOvercommitQueue = backgrounder_install_global_executor()
        let finished = DispatchSemaphore(value: 0)
        // Detached: `main` is on the main actor, whose queue nothing drains while this
        // thread waits. The command exits the process itself on errors.
        Task.detached {
            await Backgrounderd.main()
            finished.signal()
        }
        finished.wait()
    }
}
