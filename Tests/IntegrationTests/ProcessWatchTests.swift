import BackgrounderSystem
import BackgrounderTestSupport
import CSandbox
import Foundation
import Synchronization
import Testing

/// One thread sees every app process exit and copies every app's output (real processes,
/// real pipes): an exit is told after the app's last words are in its log, a child that
/// holds the pipe delays it by the grace only, and an adopted process is not reaped.
@Suite("ProcessWatch: every app process and its output on one thread", .timeLimit(.minutes(5)))
struct ProcessWatchTests {
    /// What one `onExit` saw: the status, the thread it ran on, and the log at that moment.
    struct Told: Sendable {
        var status: BackgrounderSystem.ExitStatus
        var thread: pthread_t
        var log: String
    }

    /// A shell script started with its stdout and stderr on `log`'s pipe, as an app is.
    private static func spawn(_ script: String, output log: AppLog) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, log.writeDescriptor, 1)
        posix_spawn_file_actions_adddup2(&actions, log.writeDescriptor, 2)
        let arguments = ["/bin/sh", "-c", script]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, nil, &argv, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        log.releaseWriteEnd()
        return pid
    }

    /// What the app wrote, without the stamp each line is copied with.
    private static func read(_ path: String) -> String {
        AppLogFile.text(atPath: path) ?? ""
    }

    /// Starts `script`, watches it, and returns what its `onExit` saw.
    private static func run(
        _ script: String, in directory: TemporaryDirectory, name: String, watch: ProcessWatch
    ) async throws -> (pid: pid_t, told: Told, logPath: String) {
        let path = directory.appending("\(name).log")
        let log = try AppLog(path: path, limit: 1 << 20)
        let pid = try spawn(script, output: log)
        let told = await withCheckedContinuation { (continuation: CheckedContinuation<Told, Never>) in
            watch.watchChild(pid, log: log) { status in
                continuation.resume(returning: Told(status: status, thread: pthread_self(), log: Self.read(path)))
            }
        }
        return (pid, told, path)
    }

    @Test("an exit is told with its status once the app's last words are in its log")
    func lastWordsBeforeTheExit() async throws {
        let directory = try TemporaryDirectory(prefix: "watch")
        defer { directory.remove() }
        let watch = ProcessWatch()
        // Written just before the exit, in several writes, so a watch that told the exit
        // before draining the pipe would miss some.
        let (_, told, _) = try await Self.run(
            "for i in 1 2 3 4 5 6 7 8; do echo line $i; done; echo 'last words' >&2; exit 3",
            in: directory, name: "app", watch: watch)
        #expect(told.status == BackgrounderSystem.ExitStatus.exited(3))
        #expect(told.log.hasSuffix("line 8\nlast words\n"), "\(told.log)")
        #expect(watch.counts == (0, 0))
    }

    @Test("a child that keeps the output open delays the exit by the grace only; its later output is still copied")
    func childHoldingThePipe() async throws {
        let directory = try TemporaryDirectory(prefix: "watch")
        defer { directory.remove() }
        let go = directory.appending("go")
        #expect(mkfifo(go, 0o600) == 0)
        let watch = ProcessWatch(outputGrace: .milliseconds(300))
        // The background child blocks on the FIFO until the test opens it: the exit below
        // must be told while it still holds the pipe.
        let (_, told, path) = try await Self.run(
            "(read line < \(go); echo late) & echo early; exit 0", in: directory, name: "app", watch: watch)
        #expect(told.status == BackgrounderSystem.ExitStatus.exited(0))
        #expect(told.log == "early\n")
        #expect(watch.counts.outputs == 1, "the child's output is still watched")

        let release = open(go, O_WRONLY | O_CLOEXEC)
        #expect(release >= 0)
        _ = "go\n".withCString { write(release, $0, 3) }
        close(release)
        #expect(await waitUntil(timeout: .seconds(30)) { Self.read(path) == "early\nlate\n" }, "\(Self.read(path))")
        #expect(await waitUntil(timeout: .seconds(30)) { watch.counts == (0, 0) })
    }

    @Test("forty processes are watched by one thread, each told its own status, and no reaper threads")
    func oneThreadForAll() async throws {
        let directory = try TemporaryDirectory(prefix: "watch")
        defer { directory.remove() }
        let watch = ProcessWatch()
        let results = try await withThrowingTaskGroup(of: (Int, pid_t, Told).self) { group in
            for index in 0..<40 {
                group.addTask {
                    let (pid, told, _) = try await Self.run(
                        "echo app \(index); exit \(index)", in: directory, name: "app\(index)", watch: watch)
                    return (index, pid, told)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 40)
        for (index, _, told) in results {
            #expect(told.status == BackgrounderSystem.ExitStatus.exited(Int32(index)))
            #expect(told.log == "app \(index)\n")
        }
        #expect(Set(results.map(\.2.thread)).count == 1, "every exit is told on the watch's one thread")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).map {
            Self.read("/proc/self/task/\($0)/comm").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(!names.contains { $0.hasPrefix("reaper-") }, "\(names)")
        #expect(names.contains("process-watch"))
    }

    @Test("an adopted process is told as status unknown and left for its parent to reap")
    func adoptedIsNotReaped() async throws {
        let directory = try TemporaryDirectory(prefix: "watch")
        defer { directory.remove() }
        let watch = ProcessWatch()
        let path = directory.appending("adopted.log")
        let log = try AppLog(path: path, limit: 1 << 20)
        let pid = try Self.spawn("echo adopted; exec sleep 600", output: log)
        let pidfd = bg_pidfd_open(pid)
        #expect(pidfd >= 0)
        let told = await withCheckedContinuation {
            (continuation: CheckedContinuation<BackgrounderSystem.ExitStatus, Never>) in
            watch.watchAdopted(pid, pidfd: pidfd, log: log) { continuation.resume(returning: $0) }
            // Once the first line is in, so the kill ends a process that has started.
            Task {
                _ = await waitUntil { Self.read(path) == "adopted\n" }
                kill(pid, SIGKILL)
            }
        }
        #expect(told == .unknown)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == pid, "still a zombie for its parent, not reaped by the watch")
        #expect(Self.read(path) == "adopted\n")
    }
}
