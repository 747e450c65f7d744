import Foundation
import NIOCore
import NIOPosix

/// The entry point: installs swift-nio's event loop group as Swift Concurrency's global
/// executor, then runs ``Backgrounderd``.
///
/// Why (docs/decisions/0020-idle-wakeups.md): on Linux the default global executor runs on
/// libdispatch's worker threads, and libdispatch then monitors its pools with a timer on
/// its manager thread every second, for the life of the process: an idle daemon woke once a
/// second with nothing to do. NIO's loops sleep in epoll_wait(2) with no timeout. Both pools
/// hold about one thread per core; code that blocks (system calls, child processes, gpsd,
/// PulseAudio) keeps running on threads of its own, as it did.
@main
enum Main {
    /// Whether Swift Concurrency runs on the event loops. NIO finds the runtime's hook with
    /// dlsym(3): a binary with the Swift runtime linked in statically must export it
    /// (`scripts/package.sh` links with `--export-dynamic-symbol=swift_task_enqueueGlobal_hook`).
    nonisolated(unsafe) static var onEventLoops = false

    static func main() {
        // Before any task exists: every job from here on goes to the event loops. Written
        // before the task below starts, so its reads see it.
        onEventLoops = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
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
