import BackgrounderProtocol
import ServiceLifecycle

extension WakeupPipe {
    /// Runs `body` on a thread of its own named `name` and returns once it has returned: the
    /// `run()` of a service whose work blocks in system calls (inotify, PSI, gpsd's socket).
    ///
    /// A graceful shutdown wakes this pipe; `body` includes the pipe in every blocking wait
    /// (``wait(for:timeout:)``, a `poll` set), so it returns promptly and the service ends.
    package func runThreadUntilShutdown(named name: String, _ body: @escaping @Sendable () -> Void) async {
        let finished = AsyncStream<Void>.makeStream()
        startThread(named: name) {
            body()
            finished.continuation.finish()
        }
        await withGracefulShutdownHandler {
            for await _ in finished.stream {}
        } onGracefulShutdown: { [self] in
            wake()
        }
    }
}
