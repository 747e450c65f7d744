import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
import Foundation

/// MPRIS2 players for media apps, served by the daemon so the media keys and the shell's
/// media panel reach an app that is suspended or not running at all.
///
/// Each app with the `audio` mode that publishes now-playing information gets a connection
/// of its own on the session bus (MPRIS fixes the object path, so one connection serves one
/// player), owning `org.mpris.MediaPlayer2.backgrounder.<app>`. Properties are answered from
/// the last published state without waking the app; a method becomes the remote command it
/// stands for, which wakes or launches the app as `REMOTE_COMMAND` does.
package final class MediaPlayers: Sendable {
    /// What a person asked a player for.
    package enum Request: Sendable {
        case command(RemoteCommandRequest)
        /// `Raise`: bring the app to the foreground, as `bgctl open`.
        case raise(BundleID)
    }

    private let bus: DesktopBus
    private let states = Locked<[BundleID: MediaPlayerState]>([:])
    /// What each player last announced in `PropertiesChanged`, on the bus thread's behalf.
    private let announced = Locked<[BundleID: [String: DBusValue]]>([:])
    private let requestStream: AsyncStream<Request>.Continuation
    /// Requests from the bus, for ``MediaPlayerRequests`` to carry out on the app manager.
    package let requests: AsyncStream<Request>

    package init(bus: DesktopBus) {
        self.bus = bus
        (requests, requestStream) = AsyncStream<Request>.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// How many players are published.
    package var count: Int { states.withLock { $0.count } }

    /// The endpoint name of an app's player.
    private static func endpointName(_ identifier: BundleID) -> String { "mpris:" + identifier.rawValue }

    /// An app published now-playing information: its player appears or changes.
    package func update(_ identifier: BundleID, identity: String, info: NowPlayingInfo) {
        let now = ContinuousClock.now
        let (isNew, jumped) = states.withLock { states in
            let before = states[identifier]
            states[identifier] = MediaPlayerState(identity: identity, info: info, publishedAt: now, running: true)
            // A seek, or the same item started again: more than a second off where it would be.
            let jumped =
                before.map { $0.info.index == info.index && abs($0.position(at: now) - info.elapsed) > 1 } ?? false
            return (before == nil, jumped)
        }
        if isNew {
            bus.add(endpoint(identifier))
        } else {
            announce(identifier, seekedTo: jumped ? info.elapsed : nil)
        }
    }

    /// The app ended: its player stays, `Stopped`, so a command can launch it again.
    package func appExited(_ identifier: BundleID) {
        let known = states.withLock { states in
            guard var state = states[identifier] else { return false }
            state.info.elapsed = state.position(at: .now)
            state.info.playing = false
            state.running = false
            states[identifier] = state
            return true
        }
        if known { announce(identifier) }
    }

    private func state(_ identifier: BundleID) -> MediaPlayerState? { states.withLock { $0[identifier] } }

    // MARK: On the bus thread

    private func endpoint(_ identifier: BundleID) -> BusEndpoint {
        let name = BusName.mediaPlayer(for: identifier.rawValue)
        return BusEndpoint(
            name: Self.endpointName(identifier), kind: .session,
            setUp: { [self] (connection) throws(DBusError) in
                try connection.addObject(MPRIS.objectPath) { [self] message, connection in
                    handle(message, for: identifier, on: connection)
                }
                // The name last: a client that sees it finds the object served.
                try connection.requestName(name)
                if let state = state(identifier) {
                    announced.withLock { $0[identifier] = MPRIS.playerProperties(state, now: nil) }
                }
            },
            lost: { [self] in announced.withLock { $0[identifier] = nil } })
    }

    /// Emits `PropertiesChanged` for what changed since the last announcement, and `Seeked`
    /// when the position jumped (clients follow `Position` by themselves otherwise).
    private func announce(_ identifier: BundleID, seekedTo position: Double? = nil) {
        let endpoint = Self.endpointName(identifier)
        bus.perform { [self] loop in
            guard let connection = loop.connection(endpoint), let state = state(identifier) else { return }
            if let position {
                try? connection.emit(MPRIS.objectPath, MPRIS.player, "Seeked", [.int64(MPRIS.microseconds(position))])
            }
            let now = MPRIS.playerProperties(state, now: nil)
            let changed = announced.withLock { announced in
                let before = announced[identifier] ?? [:]
                announced[identifier] = now
                return now.filter { before[$0.key] != $0.value }
            }
            guard !changed.isEmpty else { return }
            try? connection.emit(
                MPRIS.objectPath, MPRIS.properties, "PropertiesChanged",
                [.string(MPRIS.player), .vardict(changed), .strings([])])
        }
    }

    private func handle(_ message: DBusMessage, for identifier: BundleID, on connection: BusConnection) -> Bool {
        guard let state = state(identifier), let member = message.member else { return false }
        let arguments = (try? message.readAll()) ?? []
        switch message.interface {
        case MPRIS.introspectable where member == "Introspect":
            connection.reply(to: message, [.string(MPRIS.introspection)])
        case MPRIS.properties where member != "Set":
            return answerProperties(member, arguments, state: state, to: message, on: connection)
        case MPRIS.properties, MPRIS.root, MPRIS.player:
            // A method or a property set acts for the person (a media key, the shell's panel):
            // an app's process on a bus it can reach would otherwise raise itself, or wake
            // itself or another app out of suspension. Properties stay readable by anyone.
            bus.owner(of: message.sender, on: connection) { [self] owner in
                if let refusal = owner.refusalToActForPerson {
                    bus.logger.warning("MPRIS \(member) on \(identifier)'s player refused: \(refusal)")
                    connection.replyError(
                        to: message, name: "org.freedesktop.DBus.Error.AccessDenied",
                        "\(member) acts for the person, and \(refusal)")
                } else if !act(member, arguments, for: identifier, state: state, to: message, on: connection) {
                    connection.replyError(
                        to: message, name: "org.freedesktop.DBus.Error.UnknownMethod",
                        "no method \(member) on \(message.interface ?? "this interface")")
                }
            }
        default:
            return false
        }
        return true
    }

    /// Carries out a player method for the person; `false` when there is no such method.
    private func act(
        _ member: String, _ arguments: [DBusValue], for identifier: BundleID, state: MediaPlayerState,
        to message: DBusMessage, on connection: BusConnection
    ) -> Bool {
        switch message.interface {
        case MPRIS.properties:
            guard arguments.count == 3, let name = arguments[1].stringValue else { return false }
            guard arguments[0].stringValue == MPRIS.player else {
                connection.replyError(
                    to: message, name: "org.freedesktop.DBus.Error.PropertyReadOnly",
                    "\(name) on \(arguments[0].stringValue ?? "that interface") is read-only")
                return true
            }
            switch MPRIS.setting(name, to: arguments[2]) {
            case .command(let command, let argument):
                requestStream.yield(
                    .command(RemoteCommandRequest(bundle: identifier, command: command, argument: argument)))
                connection.reply(to: message)
            case .invalid(let what):
                connection.replyError(
                    to: message, name: "org.freedesktop.DBus.Error.InvalidArgs", "\(name) takes \(what)")
            case .readOnly:
                connection.replyError(
                    to: message, name: "org.freedesktop.DBus.Error.PropertyReadOnly",
                    "\(name) is read-only; Volume, Shuffle and LoopStatus may be set")
            }
        case MPRIS.root:
            switch member {
            case "Raise": requestStream.yield(.raise(identifier))
            case "Quit":
                connection.replyError(
                    to: message, name: "org.freedesktop.DBus.Error.NotSupported",
                    "a person quits an app with bgctl quit; CanQuit is false")
                return true
            default: return false
            }
            connection.reply(to: message)
        case MPRIS.player:
            // SetPosition for another track is ignored, as the specification says.
            if member == "SetPosition", arguments.count == 2, arguments[0].stringValue != MPRIS.trackID(state.info) {
                connection.reply(to: message)
                return true
            }
            guard let command = playerCommand(member, arguments, state: state) else {
                guard
                    ["Next", "Previous", "Pause", "PlayPause", "Stop", "Play", "Seek", "SetPosition", "OpenUri"]
                        .contains(member)
                else { return false }
                connection.replyError(
                    to: message, name: "org.freedesktop.DBus.Error.InvalidArgs",
                    "\(member) needs \(member == "OpenUri" ? "a file:// URI" : "a position in microseconds")")
                return true
            }
            requestStream.yield(
                .command(RemoteCommandRequest(bundle: identifier, command: command.0, argument: command.1)))
            connection.reply(to: message)
        default:
            return false
        }
        return true
    }

    /// The remote command a player method stands for, with its argument.
    private func playerCommand(_ member: String, _ arguments: [DBusValue], state: MediaPlayerState)
        -> (RemoteCommand, String?)?
    {
        switch member {
        case "Next": return (.nextTrack, nil)
        case "Previous": return (.previousTrack, nil)
        case "Pause", "Stop": return (.pause, nil)
        case "PlayPause": return (.togglePlayPause, nil)
        case "Play": return (.play, nil)
        case "Seek":
            guard let offset = arguments.first?.integerValue else { return nil }
            let target = max(0, state.position(at: .now) + Double(offset) / 1_000_000)
            return (.changePlaybackPosition, String(target))
        case "SetPosition":
            guard arguments.count == 2, let position = arguments[1].integerValue, position >= 0 else { return nil }
            return (.changePlaybackPosition, String(Double(position) / 1_000_000))
        case "OpenUri":
            guard let uri = arguments.first?.stringValue, uri.hasPrefix("file:///"),
                let path = String(uri.dropFirst("file://".count)).removingPercentEncoding
            else { return nil }
            return (.play, path)
        default: return nil
        }
    }

    private func answerProperties(
        _ member: String, _ arguments: [DBusValue], state: MediaPlayerState, to message: DBusMessage,
        on connection: BusConnection
    ) -> Bool {
        let interface = arguments.first?.stringValue ?? ""
        let properties: [String: DBusValue]? =
            switch interface {
            case MPRIS.root: MPRIS.rootProperties(state)
            case MPRIS.player: MPRIS.playerProperties(state, now: .now)
            default: nil
            }
        switch member {
        case "GetAll":
            connection.reply(to: message, [.vardict(properties ?? [:])])
        case "Get":
            guard let name = arguments.dropFirst().first?.stringValue, let value = properties?[name] else {
                connection.replyError(
                    to: message, name: "org.freedesktop.DBus.Error.UnknownProperty",
                    "no property \(arguments.dropFirst().first?.stringValue ?? "") on \(interface)")
                return true
            }
            connection.reply(to: message, [.variant(value)])
        default:
            return false
        }
        return true
    }
}
