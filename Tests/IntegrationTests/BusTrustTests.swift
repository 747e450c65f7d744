import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A hostile app on a session bus it can reach, as on a person's desktop where apps keep the
/// person's uid: the bus lets it in (`admitsAnyone`), so only the daemon's own checks stand between
/// it and the person's controls. Judged by outcome: the suspended player stays suspended and
/// silent, the app never becomes the push distributor, and the same calls from the person
/// still work.
@Suite(
    "Apps on the desktop bus",
    .enabled(if: AudioFixture.available && SessionBus.isAvailable && Locations.hasProgram("playerctl")),
    .timeLimit(.minutes(5)), .tearsDown)
struct BusTrustTests {
    static let playerName = "org.mpris.MediaPlayer2." + MediaKeysTests.playerName
    static let distributor = "org.unifiedpush.Distributor.aaa"

    @Test("an app on the bus can neither press play on nor raise a suspended player, nor become the push distributor")
    func appCannotActForThePersonOnTheBus() async throws {
        var hostile = ""
        let fixture = try await DesktopPlayerFixture.start(prefix: "bustrust", admitsAnyone: true) { bundles, bus in
            // Reachable on the file system by an app's own uid too.
            chmod((bundles as NSString).deletingLastPathComponent, 0o755)
            chmod(bus.socketPath, 0o777)
            try SampleBundles.assemble("BackgroundPlayer", into: bundles)
            hostile = try PythonAppBundles.make("BusHostile", script: Self.hostileScript(bus.socketPath), into: bundles)
        }
        let (bus, daemon) = (fixture.bus, fixture.daemon)
        let player = AudioFixture.player
        func state(_ id: String) throws -> ApplicationState? {
            guard case .apps(let list) = try daemon.client().request(.ps).body else { return nil }
            return list.apps.first { $0.id.rawValue == id }?.state
        }
        func status() async throws -> String {
            try await playerctl("-p", MediaKeysTests.playerName, "status", bus: bus).output
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        // The player plays, is sent home and paused by the person: suspended.
        let music = daemon.stateDirectory + "/data/" + player + "/music"
        try WAVFile.writeTwoTones(into: music, amplitude: 16_000, seconds: 180)
        _ = try await daemon.request(
            .remoteCommand(RemoteCommandRequest(bundle: BundleID(player), command: .play, argument: music)))
        #expect(
            await waitUntil(timeout: .seconds(20)) { (try? await status()) == "Playing" }, "\(daemon.log.suffix(2000))")
        _ = try daemon.client().request(.home)
        _ = try await playerctl("-p", MediaKeysTests.playerName, "play-pause", bus: bus)
        #expect(try await waitUntil(timeout: .seconds(30)) { try state(player) == .suspended })

        // The hostile app, in front, calls the player's methods and claims a distributor name.
        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(hostile))))
        let report = daemon.stateDirectory + "/data/" + hostile + "/report.jsonl"
        let reported = { Self.reported(report) }
        #expect(
            await waitUntil(timeout: .seconds(60)) { reported()["distributor"] != nil },
            "\(reported())\n\(AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(hostile).log") ?? "")"
        )
        let values = reported()
        #expect(values["connected"]?.hasPrefix(":") == true, "the bus let the app in: \(values)")
        for method in ["Raise", "Play", "PlayPause", "SetVolume"] {
            #expect(values[method]?.contains("AccessDenied") == true, "\(method): \(values)")
        }
        #expect(
            daemon.log.contains(
                "MPRIS Raise on \(player)'s player refused: the caller is a process of the app \(hostile)"))
        #expect(try state(player) == .suspended, "an app's call woke the player")
        guard
            case .audioStatus(let audio) = try daemon.client().request(.audio(AudioQuery(bundle: BundleID(player))))
                .body
        else {
            Issue.record("no AUDIO")
            return
        }
        #expect(audio.sessions.first?.nowPlaying?.volume == 1, "an app's Set changed the player's volume")
        #expect(try await status() == "Paused")
        // The name is the app's on the bus, but the daemon does not register apps with it.
        #expect(
            await waitUntil {
                (try? daemon.status().desktop?.unifiedPush)?.contains("\(Self.distributor) refused") == true
            }, "\((try? daemon.status().desktop?.unifiedPush) ?? "")")
        #expect(try daemon.status().desktop?.unifiedPush.contains("a process of the app \(hostile)") == true)

        // The person's same key still works: the player wakes and plays.
        _ = try await playerctl("-p", MediaKeysTests.playerName, "play-pause", bus: bus)
        #expect(try await waitUntil(timeout: .seconds(30)) { try state(player) == .background })
        #expect(await waitUntil(timeout: .seconds(20)) { (try? await status()) == "Playing" })
    }

    /// What the hostile app reported, by key, as text.
    static func reported(_ path: String) -> [String: String] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let entry = try? JSONValue(text: String(line)), case .string(let key)? = entry["key"] else {
                continue
            }
            switch entry["value"] {
            case .string(let value)?: values[key] = value
            case let value?: values[key] = "\(value)"
            case nil: values[key] = ""
            }
        }
        return values
    }

    /// Connects to the bus as a client of its own (ANONYMOUS, which this bus admits), calls
    /// the player's methods as a media key would, and asks for a distributor's name.
    static func hostileScript(_ socketPath: String) -> String {
        """
        \(PythonAppBundles.checkIn)
        import struct

        def pad(data, n):
            return data + b"\\0" * ((-len(data)) % n)

        class Bus:
            def __init__(self, path):
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.settimeout(20)
                self.sock.connect(path)
                self.sock.sendall(b"\\0AUTH ANONYMOUS\\r\\n")
                answer = self.sock.recv(256)
                if not answer.startswith(b"OK"):
                    raise OSError("authentication: %r" % answer)
                self.sock.sendall(b"BEGIN\\r\\n")
                self.serial, self.buffer = 0, b""
                self.name = self.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")

            def call(self, destination, path, interface, member, signature="", body=b""):
                self.serial += 1
                fields = b""
                entries = [(1, b"o", path), (2, b"s", interface), (3, b"s", member), (6, b"s", destination)]
                for code, kind, value in entries + ([(8, b"g", signature)] if signature else []):
                    fields = pad(fields, 8) + bytes([code, 1]) + kind + b"\\0"
                    raw = value.encode()
                    if kind == b"g":
                        fields += bytes([len(raw)]) + raw + b"\\0"
                    else:
                        fields = pad(fields, 4) + struct.pack("<I", len(raw)) + raw + b"\\0"
                header = b"l\\x01\\x00\\x01" + struct.pack("<III", len(body), self.serial, len(fields)) + fields
                self.sock.sendall(pad(header, 8) + body)
                while True:
                    kind, reply_to, error, text = self.receive()
                    if reply_to == self.serial:
                        return "%s: %s" % (error, text) if kind == 3 else text

            def receive(self):
                while len(self.buffer) < 16:
                    self.buffer += self.read()
                body_length, _, fields_length = struct.unpack_from("<III", self.buffer, 4)
                end = 16 + fields_length
                start = end + (-end) % 8
                while len(self.buffer) < start + body_length:
                    self.buffer += self.read()
                message, self.buffer = self.buffer[:start + body_length], self.buffer[start + body_length:]
                reply_to, error, offset = None, None, 16
                while offset < end:
                    offset += (-offset) % 8
                    code, length = message[offset], message[offset + 1]
                    kind = message[offset + 2:offset + 2 + length]
                    offset += 3 + length
                    if kind in (b"s", b"o"):
                        offset += (-offset) % 4
                        (n,) = struct.unpack_from("<I", message, offset)
                        value = message[offset + 4:offset + 4 + n].decode()
                        offset += 5 + n
                    elif kind == b"g":
                        n = message[offset]
                        value = message[offset + 1:offset + 1 + n].decode()
                        offset += 2 + n
                    elif kind == b"u":
                        offset += (-offset) % 4
                        (value,) = struct.unpack_from("<I", message, offset)
                        offset += 4
                    else:
                        break
                    if code == 4:
                        error = value
                    elif code == 5:
                        reply_to = value
                # The first argument as text when it is a string (Hello's name, an error's message).
                text = ""
                if body_length >= 4:
                    (n,) = struct.unpack_from("<I", message, start)
                    text = message[start + 4:start + 4 + n].decode(errors="replace")
                return message[1], reply_to, error, text

            def read(self):
                data = self.sock.recv(65536)
                if not data:
                    raise OSError("the bus closed the connection")
                return data

        try:
            bus = Bus(\(String(reflecting: socketPath)))
            report("connected", bus.name)
        except OSError as error:
            report("connected", "no: " + str(error))
            report("distributor", "no bus")
            while True:
                time.sleep(1)
        for interface, member in [("org.mpris.MediaPlayer2", "Raise"), ("org.mpris.MediaPlayer2.Player", "Play"),
                                  ("org.mpris.MediaPlayer2.Player", "PlayPause")]:
            answer = bus.call(\(String(reflecting: playerName)), "/org/mpris/MediaPlayer2", interface, member)
            report(member, answer or "accepted")
        # Setting the player's volume is a remote command too: it would wake the player.
        def string(value, body):
            data = value.encode()
            return pad(body, 4) + struct.pack("<I", len(data)) + data + b"\\0"
        body = string("Volume", string("org.mpris.MediaPlayer2.Player", b"")) + b"\\x01d\\0"
        body = pad(body, 8) + struct.pack("<d", 0.1)
        answer = bus.call(\(String(reflecting: playerName)), "/org/mpris/MediaPlayer2",
                          "org.freedesktop.DBus.Properties", "Set", "ssv", body)
        report("SetVolume", answer or "accepted")
        name = \(String(reflecting: distributor)).encode()
        body = pad(struct.pack("<I", len(name)) + name + b"\\0", 4) + struct.pack("<I", 4)
        answer = bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
                          "su", body)
        report("distributor", "asked: " + repr(answer))
        while True:
            time.sleep(1)
        """
    }
}
