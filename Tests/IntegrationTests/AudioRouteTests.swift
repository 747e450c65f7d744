import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

extension RealTimeSuites {
    /// The outside world of an app's sound, with a real PulseAudio: what the server is told
    /// of a stream (its role, its app), outputs that come and go (null sinks loaded and
    /// unloaded, as headphones are plugged and unplugged), a person moving the sound, and the
    /// server's own policy asking for quiet (`module-role-cork` and a `phone` stream).
    @Suite(
        "Audio routes and roles",
        .enabled(if: AudioFixture.available, "PulseAudio is not installed (scripts/setup.sh installs it)"),
        .timeLimit(.minutes(5)), .tearsDown
    )
    struct AudioRouteTests {
        /// Runs pactl against the test's server; returns its standard output.
        static func pactl(_ arguments: [String], _ fixture: AudioFixture) async throws -> String {
            let process = try ChildProcess(
                "/usr/bin/env", ["pactl"] + arguments, environment: fixture.pulse.clientEnvironment,
                logPath: fixture.directory.appending("pactl-\(UUID().uuidString.prefix(6)).log"))
            guard await process.waitForExit(timeout: .seconds(20)), process.terminationStatus == 0 else {
                throw HarnessError("pactl \(arguments.joined(separator: " ")): \(process.output)")
            }
            return process.output
        }

        struct SinkInput: Decodable {
            var sink: Int
            var properties: [String: String]
        }
        struct Sink: Decodable {
            var index: Int
            var name: String
        }

        /// The player's stream as the server sees it, and the name of the sink it plays to.
        static func playerInput(_ fixture: AudioFixture) async throws -> (input: SinkInput, sink: String)? {
            let inputs = try JSONDecoder().decode(
                [SinkInput].self, from: Data(try await pactl(["-f", "json", "list", "sink-inputs"], fixture).utf8))
            let sinks = try JSONDecoder().decode(
                [Sink].self, from: Data(try await pactl(["-f", "json", "list", "sinks"], fixture).utf8))
            guard let input = inputs.first(where: { $0.properties["application.id"] == AudioFixture.player }) else {
                return nil
            }
            return (input, sinks.first { $0.index == input.sink }?.name ?? "?")
        }

        @Test(
            "a stream says its role and app; a person moves it; its output unplugged pauses it and tells the app; the server's cork request is an interruption"
        )
        func routesAndRoles() async throws {
            try await AudioFixture.run(prefix: "audio-route") { bundles in
                try SampleBundles.assemble("BackgroundPlayer", into: bundles)
            } test: { fixture in
                let player = AudioFixture.player
                let (_, path) = try fixture.signal(seconds: 120)
                _ = try await fixture.command(.play, path)
                #expect(try await fixture.waitUntilPlaying())

                // What the server is told: a music player, and which app.
                let first = try #require(try await Self.playerInput(fixture), "no sink input of the player")
                #expect(first.input.properties["media.role"] == "music", "\(first.input.properties)")
                #expect(first.input.properties["application.name"] == "BackgroundPlayer")
                #expect(first.sink == PulseAudioServer.sinkName)

                // Headphones: another output. A person sends the sound there; it plays on.
                let module = try await Self.pactl(
                    ["load-module", "module-null-sink", "sink_name=phones"], fixture
                ).trimmingCharacters(in: .whitespacesAndNewlines)
                let moved = try fixture.request(
                    .audioRoute(AudioRouteRequest(bundle: BundleID(player), sink: "phones")))
                guard case .done = moved else {
                    Issue.record("AUDIO_ROUTE: \(moved)")
                    return
                }
                #expect(await waitUntil { (try? await Self.playerInput(fixture))?.sink == "phones" })
                #expect(
                    await waitUntil { fixture.appLog(player).contains("route changed (override)") },
                    "\(fixture.appLog(player).suffix(1500))")
                #expect(try fixture.stream(player)?.state == "playing")
                let refused = try fixture.request(
                    .audioRoute(AudioRouteRequest(bundle: BundleID(player), sink: "nowhere")))
                #expect(refused.errorCode == .notFound, "\(refused)")

                // Unplugged: the output goes; the stream is paused, the app told, and, paused in
                // the background, it is suspended.
                _ = try await Self.pactl(["unload-module", module], fixture)
                #expect(
                    await waitUntil {
                        fixture.appLog(player).contains("route changed (oldDeviceUnavailable): phones -> ")
                    }, "\(fixture.appLog(player).suffix(1500))")
                #expect(await waitUntil { (try? fixture.stream(player))??.state == "paused" })
                #expect(await waitUntil { fixture.appLog(player).contains("paused") })
                #expect(await fixture.waitUntilSuspended(player, timeout: .seconds(30)))

                // The server's policy: a call (a `phone` stream) corks music, and lets it go.
                _ = try await Self.pactl(
                    ["load-module", "module-role-cork", "trigger_roles=phone", "cork_roles=music"], fixture)
                _ = try await fixture.command(.play)
                #expect(try await fixture.waitUntilPlaying())
                let call = try ChildProcess(
                    "/usr/bin/env", ["pacat", "--playback", "--property=media.role=phone", "/dev/zero"],
                    environment: fixture.pulse.clientEnvironment, logPath: fixture.directory.appending("call.log"))
                #expect(
                    await waitUntil {
                        fixture.appLog(player).contains("interrupted: the sound server asked for quiet")
                    },
                    "\(fixture.appLog(player).suffix(1500))")
                #expect(await waitUntil { (try? fixture.stream(player))??.corkedBy.contains(.requested) == true })
                call.signal(SIGTERM)
                #expect(await call.waitForExit(timeout: .seconds(10)))
                #expect(
                    await waitUntil {
                        fixture.appLog(player).contains(
                            "interruption ended (the sound server asked for quiet), resume: true")
                    }, "\(fixture.appLog(player).suffix(1500))")
                #expect(try await fixture.waitUntilPlaying())
            }
        }
    }
}
