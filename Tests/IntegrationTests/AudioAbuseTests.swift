import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension RealTimeSuites {
    /// Hostile peers on the audio path: the daemon refuses them clearly and keeps playing for
    /// everyone else.
    @Suite(
        "Audio abuse",
        .enabled(if: AudioFixture.available, "PulseAudio is not installed (scripts/setup.sh installs it)"),
        .timeLimit(.minutes(5)), .tearsDown
    )
    struct AudioAbuseTests {
        /// Connects to the audio socket, sends `text`, returns the daemon's answer line; on a
        /// thread of its own, since a silent client waits a second for the daemon to drop it.
        static func exchange(_ socketPath: String, _ text: String?) async throws -> String {
            try await onOwnThread { try blockingExchange(socketPath, text) }
        }

        private static func blockingExchange(_ socketPath: String, _ text: String?) throws -> String {
            let descriptor = try DaemonSocket.connect(to: socketPath)
            defer { close(descriptor) }
            if let text {
                _ = Array(text.utf8).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
        }

        /// The player's stream keeps moving audio (the server asks for it in bursts about a
        /// second apart, so this waits for the next). The wait is generous: at the start of a CI
        /// run, with every suite starting at once on two cores, the server once asked for
        /// nothing for over five seconds.
        ///
        /// Playing, or paused at the end of the track with all of it delivered: on a loaded
        /// machine the abuse can outlast the track, and a track played to its end is playback
        /// that went on (`trackSeconds` of 44.1 kHz 16-bit stereo).
        static func expectPlayingOn(_ fixture: AudioFixture, trackSeconds: Int) async throws {
            let trackBytes = trackSeconds * 44_100 * 4
            let before = try #require(try fixture.stream(AudioFixture.player))
            let moved = await waitUntil(timeout: .seconds(20)) {
                let bytes = (try? fixture.stream(AudioFixture.player))??.bytes ?? 0
                return bytes > before.bytes || bytes >= trackBytes
            }
            let now = try fixture.stream(AudioFixture.player)
            let playedToTheEnd = (now?.bytes ?? 0) >= trackBytes
            #expect(
                playedToTheEnd || (moved && now?.state == "playing"),
                "\(before) then \(String(describing: now))\n\(evidence(fixture, apps: [AudioFixture.player]))")
        }

        /// What a failed expectation shows: every stream the daemon has, the daemon's audio
        /// and life-cycle lines, and the apps' own logs (the tails), so a failure on a loaded
        /// CI machine says which side stopped.
        static func evidence(_ fixture: AudioFixture, apps: [String]) -> String {
            let streams = (try? fixture.audio().streams.map { "\($0)" }.joined(separator: "\n")) ?? "(no answer)"
            let daemonLines = fixture.daemon.log.split(separator: "\n")
                .filter { !$0.contains("client connected") && !$0.contains("client disconnected") }
                .suffix(60).joined(separator: "\n")
            let appLogs = apps.map {
                "\($0):\n" + fixture.appLog($0).split(separator: "\n").suffix(20).joined(separator: "\n")
            }
            return (["streams:\n\(streams)", "daemon:\n\(daemonLines)"] + appLogs).joined(separator: "\n")
        }

        @Test(
            "a background player that plays only silence loses the audio assertion once the policy's limit passes and is suspended; one playing a tone keeps it"
        )
        func silenceIsNotBackgroundAudio() async throws {
            try await AudioFixture.run(prefix: "audio-silence", extraArguments: ["--audio-silence-limit", "3"]) {
                bundles in
                try TestAppBundles.make("Hush", behavior: "silence", modes: ["audio"], into: bundles)
                try TestAppBundles.make("Tone", behavior: "tone", modes: ["audio"], into: bundles)
            } test: { fixture in
                let hush = "org.backgrounder.tests.hush"
                let tone = "org.backgrounder.tests.tone"
                for id in [tone, hush] {
                    _ = try fixture.request(.open(OpenApp(bundle: BundleID(id), wait: true)))
                    #expect(try await fixture.waitUntilPlaying(id), "\(id): \(fixture.appLog(id))")
                    _ = try fixture.request(.home)
                }
                // The silent one: its stream is "silent", the daemon says why, it is suspended.
                #expect(
                    await waitUntil(timeout: .seconds(30)) { (try? fixture.stream(hush))??.state == "silent" },
                    "\(String(describing: try? fixture.stream(hush)))")
                #expect(
                    fixture.daemonLogged(
                        "has played only silence for 3.0 seconds: silence is not background audio", for: hush),
                    "\(fixture.daemon.log.suffix(2000))")
                #expect(await fixture.waitUntilSuspended(hush, timeout: .seconds(30)))
                // The tone, in the background as long, plays on with its assertion.
                let kept = try fixture.app(tone)
                #expect(kept.state == .background && kept.assertions.contains("audio"), "\(kept)")
                #expect(try fixture.stream(tone)?.state == "playing")
            }
        }

        @Test("garbage, unknown tokens and silent clients on the audio socket are refused; playback goes on")
        func audioSocket() async throws {
            try await AudioFixture.run(prefix: "audio-abuse") { bundles in
                try SampleBundles.assemble("BackgroundPlayer", into: bundles)
            } test: { fixture in
                let (_, path) = try fixture.signal(seconds: 30)
                _ = try await fixture.command(.play, path)
                #expect(try await fixture.waitUntilPlaying())
                let audioSocket = fixture.daemon.socketPath.replacingOccurrences(of: ".sock", with: "-audio.sock")

                #expect(try await Self.exchange(audioSocket, "HELLO\n") == "ERR expected ATTACH TOKEN or OPEN PATH\n")
                // Only an app's processes may attach at all; this test process is no app's.
                #expect(
                    try await Self.exchange(audioSocket, "ATTACH 0123-4567\n")
                        == "ERR pid \(getpid()) is not a process of any app\n")
                #expect(try await Self.exchange(audioSocket, String(repeating: "A", count: 5000)) == "")
                // Says nothing: dropped after a second, without an answer.
                #expect(try await Self.exchange(audioSocket, nil) == "")

                try await Self.expectPlayingOn(fixture, trackSeconds: 30)
                #expect(fixture.daemon.isRunning)
            }
        }

        /// Keeps 40 silent connections to the audio socket, opening a new one for each the
        /// daemon answers or drops, and writes down the answers it got.
        static let hogScript = #"""
            #!/usr/bin/python3
            import json, os, socket, time
            control = os.environ["BACKGROUNDER_SOCKET"]
            audio = (control[:-5] if control.endswith(".sock") else control) + "-audio.sock"
            data = os.environ["BACKGROUNDER_DATA_DIR"]
            held, answers, opened = [], set(), 0
            while True:
                for connection in list(held):
                    try:
                        answer = connection.recv(256)
                    except BlockingIOError:
                        continue
                    except OSError:
                        answer = b""
                    held.remove(connection)
                    connection.close()
                    if answer:
                        answers.add(answer.decode(errors="replace").strip())
                while len(held) < 40:
                    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    connection.settimeout(0.5)
                    try:
                        connection.connect(audio)
                    except OSError:
                        connection.close()
                        break
                    connection.setblocking(False)
                    held.append(connection)
                    opened += 1
                with open(os.path.join(data, "hog.tmp"), "w") as out:
                    json.dump({"opened": opened, "answers": sorted(answers)}, out)
                os.rename(os.path.join(data, "hog.tmp"), os.path.join(data, "hog.json"))
                time.sleep(0.1)
            """#

        @Test(
            "an app holding 40 silent connections to the audio socket gets 4 waiting and the rest refused; another app attaches and plays"
        )
        func audioSocketHog() async throws {
            let hog = "org.backgrounder.tests.hog"
            try await AudioFixture.run(prefix: "audio-hog") { bundles in
                try SampleBundles.assemble("BackgroundPlayer", into: bundles)
                try PythonAppBundles.make("Hog", script: Self.hogScript, prelude: false, into: bundles)
            } test: { fixture in
                // The hog in front, so it runs on while the player is asked to play.
                _ = try fixture.request(.open(OpenApp(bundle: BundleID(hog))))
                let report = fixture.daemon.stateDirectory + "/data/\(hog)/hog.json"
                func heard() -> [String: Any]? {
                    (try? Data(contentsOf: URL(fileURLWithPath: report)))
                        .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
                }
                #expect(
                    await waitUntil { (heard()?["opened"] as? Int ?? 0) >= 40 },
                    "\(String(describing: heard())) \(fixture.appLog(hog))")
                let openedBefore = heard()?["opened"] as? Int ?? 0

                // Served one at a time, the hog's connections held the player's attach past its
                // token's ten seconds, and it never played.
                let (_, path) = try fixture.signal(seconds: 30)
                _ = try await fixture.command(.play, path)
                #expect(try await fixture.waitUntilPlaying(), "\(fixture.appLog(AudioFixture.player))")
                let answers = heard()?["answers"] as? [String] ?? []
                #expect(
                    answers.contains("ERR \(hog) already has 4 connections waiting to attach"), "\(answers)")
                // It kept at it all along.
                #expect(
                    heard()?["opened"] as? Int ?? 0 > openedBefore,
                    "\(String(describing: try? fixture.app(hog))) \(fixture.daemon.log.split(separator: "\n").filter { $0.contains(hog) }.suffix(10))"
                )
                try await Self.expectPlayingOn(fixture, trackSeconds: 30)
            }
        }

        @Test("an app that scribbles over its ring's header stops only its own stream")
        func scribbledRing() async throws {
            let tone = "org.backgrounder.tests.tone"
            try await AudioFixture.run(prefix: "audio-scribble") { bundles in
                try SampleBundles.assemble("BackgroundPlayer", into: bundles)
                try TestAppBundles.make("Tone", behavior: "tone-duck", into: bundles)
            } test: { fixture in
                let (_, path) = try fixture.signal(seconds: 30)
                _ = try await fixture.command(.play, path)
                #expect(try await fixture.waitUntilPlaying())
                _ = try fixture.request(.open(OpenApp(bundle: BundleID(tone))))
                #expect(try await fixture.waitUntilPlaying(tone))

                // As root the test reaches into the app's memfd through /proc and writes nonsense
                // indices, as a buggy or hostile app could.
                let pid = try #require(try fixture.app(tone).pid)
                let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
                let ring = try #require(
                    descriptors.first { entry in
                        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(entry)"))?
                            .contains("memfd:backgrounderd") ?? false
                    }, "the app maps no ring")
                let file = open("/proc/\(pid)/fd/\(ring)", O_RDWR)
                try #require(file >= 0)
                defer { close(file) }
                let header = try #require(mmap(nil, 256, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0))
                try #require(header != MAP_FAILED)
                defer { munmap(header, 256) }
                // The write index a terabyte past the read index: more than the ring can hold.
                // The app is stopped meanwhile: its next write would put a sane index back, and
                // on a busy machine it sometimes came before the daemon's next read. It is
                // stopped with audio still in its ring: the server then keeps asking the daemon
                // for more, and the daemon reads the header again. A stream that ran dry (the
                // app slowed by a loaded machine) is asked nothing until the app writes, so the
                // daemon never looked at the scribbled header (runs V, AL and AZ in TESTING.md).
                var buffered = false
                for _ in 0..<200 {
                    kill(pid, SIGSTOP)
                    let written = header.load(fromByteOffset: 64, as: UInt64.self)
                    let read = header.load(fromByteOffset: 128, as: UInt64.self)
                    // A tenth of a second of the tone (s16le mono 44.1 kHz).
                    if written &- read >= 8_820 {
                        buffered = true
                        break
                    }
                    kill(pid, SIGCONT)
                    try await Task.sleep(for: .milliseconds(50))
                }
                try #require(buffered, "the tone's ring never held a tenth of a second while the app was stopped")
                header.storeBytes(of: UInt64(1) << 40, toByteOffset: 64, as: UInt64.self)
                header.storeBytes(of: 0, toByteOffset: 128, as: UInt64.self)

                // The daemon closes that stream, says why, and the app hears its stream is gone.
                #expect(await waitUntil { fixture.daemon.log.contains("ring holds impossible indices") })
                kill(pid, SIGCONT)
                #expect(
                    await waitUntil { fixture.appLog(tone).contains("audio failed: the daemon closed audio stream") },
                    "\(Self.evidence(fixture, apps: [tone, AudioFixture.player]))")
                #expect(fixture.daemon.isRunning)
                try await Self.expectPlayingOn(fixture, trackSeconds: 30)
            }
        }

        @Test("an app opening stream after stream is refused past the limit, with the reason")
        func tooManyStreams() async throws {
            let greedy = "org.backgrounder.tests.greedy"
            try await AudioFixture.run(prefix: "audio-greedy") { bundles in
                try TestAppBundles.make("Greedy", behavior: "streams", into: bundles)
            } test: { fixture in
                _ = try fixture.request(.open(OpenApp(bundle: BundleID(greedy))))
                #expect(await waitUntil { fixture.appLog(greedy).contains("audio failed") })
                #expect(fixture.appLog(greedy).contains("already has 8 audio streams, the most an app may have"))
                #expect(try fixture.audio(greedy).streams.count == 8)
                #expect(fixture.daemon.isRunning)
            }
        }
    }
}
