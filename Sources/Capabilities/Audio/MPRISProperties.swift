import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Foundation

/// What the daemon knows of one app's player, from which its MPRIS properties are derived.
package struct MediaPlayerState: Sendable, Equatable {
    /// The app's name, MPRIS's `Identity`.
    package var identity: String
    /// What the app last published with `NOW_PLAYING`.
    package var info: NowPlayingInfo
    /// When it published it, to advance `Position` while it plays.
    package var publishedAt: ContinuousClock.Instant
    /// Whether the app runs (suspended counts); a player whose app ended is `Stopped`.
    package var running: Bool

    /// MPRIS's `PlaybackStatus`.
    package var playbackStatus: String {
        guard running else { return "Stopped" }
        return info.playing ? "Playing" : "Paused"
    }

    /// Seconds into the item now: advanced from the published figure while playing, never
    /// past the item's end.
    package func position(at now: ContinuousClock.Instant) -> Double {
        info.advanced(by: running ? (now - publishedAt).seconds : 0).elapsed
    }

    /// MPRIS's `LoopStatus` for the app's repeat mode.
    package var loopStatus: String {
        switch info.repeatMode ?? .off {
        case .off: "None"
        case .one: "Track"
        case .all: "Playlist"
        }
    }
}

/// The MPRIS2 interfaces' names, properties and introspection data.
package enum MPRIS {
    package static let objectPath = "/org/mpris/MediaPlayer2"
    package static let root = "org.mpris.MediaPlayer2"
    package static let player = "org.mpris.MediaPlayer2.Player"
    package static let properties = "org.freedesktop.DBus.Properties"
    package static let introspectable = "org.freedesktop.DBus.Introspectable"

    /// The root interface's properties.
    package static func rootProperties(_ state: MediaPlayerState) -> [String: DBusValue] {
        [
            "CanQuit": .boolean(false),
            "CanRaise": .boolean(true),
            "HasTrackList": .boolean(false),
            "Identity": .string(state.identity),
            "SupportedUriSchemes": .strings(["file"]),
            "SupportedMimeTypes": .strings([]),
        ]
    }

    /// The player interface's properties; `Position` only when `now` is given (it is never
    /// announced in `PropertiesChanged`, as the specification says).
    package static func playerProperties(_ state: MediaPlayerState, now: ContinuousClock.Instant?) -> [String:
        DBusValue]
    {
        let info = state.info
        var properties: [String: DBusValue] = [
            "PlaybackStatus": .string(state.playbackStatus),
            "Rate": .double(1),
            "MinimumRate": .double(1),
            "MaximumRate": .double(1),
            "Volume": .double(info.volume ?? 1),
            "LoopStatus": .string(state.loopStatus),
            "Shuffle": .boolean(info.shuffleMode == .items),
            "Metadata": metadata(info),
            "CanGoNext": .boolean(
                info.repeatMode == .all || info.index.map { index in index + 1 < (info.count ?? .max) } ?? true),
            "CanGoPrevious": .boolean(info.index.map { $0 > 0 } ?? true),
            "CanPlay": .boolean(true),
            "CanPause": .boolean(true),
            "CanSeek": .boolean(info.duration != nil),
            "CanControl": .boolean(true),
        ]
        if let now { properties["Position"] = .int64(microseconds(state.position(at: now))) }
        return properties
    }

    /// What a `Set` of a player property asks for.
    package enum Setting: Equatable {
        /// The remote command it stands for, with its argument.
        case command(RemoteCommand, String)
        /// A writable property given a value it does not take; what it takes.
        case invalid(String)
        /// Not a property a client may write.
        case readOnly
    }

    /// What setting a player property to `value` asks of the app: `Volume`, `Shuffle` and
    /// `LoopStatus` are the person's to set, as the player's own controls.
    package static func setting(_ name: String, to value: DBusValue) -> Setting {
        var value = value
        if case .variant(let inner) = value { value = inner }
        switch name {
        case "Volume":
            // Out of range is clamped, as the specification has it for negative values.
            guard case .double(let level) = value, level.isFinite else { return .invalid("a double") }
            return .command(.changeVolume, String(min(1, max(0, level))))
        case "Shuffle":
            guard case .boolean(let on) = value else { return .invalid("a boolean") }
            return .command(.changeShuffleMode, (on ? ShuffleMode.items : .off).rawValue)
        case "LoopStatus":
            let modes = ["None": RepeatMode.off, "Track": .one, "Playlist": .all]
            guard let mode = value.stringValue.flatMap({ modes[$0] }) else {
                return .invalid("None, Track or Playlist")
            }
            return .command(.changeRepeatMode, mode.rawValue)
        default:
            return .readOnly
        }
    }

    /// `Metadata`: the track id, length, title, artist, album and file.
    package static func metadata(_ info: NowPlayingInfo) -> DBusValue {
        var entries: [String: DBusValue] = [
            "mpris:trackid": .objectPath(trackID(info)),
            "xesam:title": .string(info.title),
        ]
        if let duration = info.duration { entries["mpris:length"] = .int64(microseconds(duration)) }
        if let artist = info.artist { entries["xesam:artist"] = .strings([artist]) }
        if let album = info.album { entries["xesam:album"] = .string(album) }
        if let path = info.path, path.hasPrefix("/") { entries["xesam:url"] = .string(fileURL(path)) }
        return .vardict(entries)
    }

    /// A track id that changes with the item: its place in the queue.
    package static func trackID(_ info: NowPlayingInfo) -> String {
        "/org/backgrounder/track/\(info.index ?? 0)"
    }

    package static func microseconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1_000_000).rounded())
    }

    /// `file://` and the path, percent-encoded where a URL needs it.
    package static func fileURL(_ path: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
        return "file://"
            + path.utf8.map { allowed.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }
            .joined()
    }

    /// The introspection data clients such as `gdbus introspect` and d-feet read.
    package static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
            <method name="GetAll"><arg type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
            <method name="Set"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="in"/></method>
            <signal name="PropertiesChanged"><arg type="s"/><arg type="a{sv}"/><arg type="as"/></signal>
          </interface>
          <interface name="org.mpris.MediaPlayer2">
            <method name="Raise"/>
            <method name="Quit"/>
            <property name="CanQuit" type="b" access="read"/>
            <property name="CanRaise" type="b" access="read"/>
            <property name="HasTrackList" type="b" access="read"/>
            <property name="Identity" type="s" access="read"/>
            <property name="SupportedUriSchemes" type="as" access="read"/>
            <property name="SupportedMimeTypes" type="as" access="read"/>
          </interface>
          <interface name="org.mpris.MediaPlayer2.Player">
            <method name="Next"/>
            <method name="Previous"/>
            <method name="Pause"/>
            <method name="PlayPause"/>
            <method name="Stop"/>
            <method name="Play"/>
            <method name="Seek"><arg name="Offset" type="x" direction="in"/></method>
            <method name="SetPosition"><arg name="TrackId" type="o" direction="in"/><arg name="Position" type="x" direction="in"/></method>
            <method name="OpenUri"><arg name="Uri" type="s" direction="in"/></method>
            <signal name="Seeked"><arg name="Position" type="x"/></signal>
            <property name="PlaybackStatus" type="s" access="read"/>
            <property name="Rate" type="d" access="read"/>
            <property name="Metadata" type="a{sv}" access="read"/>
            <property name="Volume" type="d" access="readwrite"/>
            <property name="LoopStatus" type="s" access="readwrite"/>
            <property name="Shuffle" type="b" access="readwrite"/>
            <property name="Position" type="x" access="read"/>
            <property name="MinimumRate" type="d" access="read"/>
            <property name="MaximumRate" type="d" access="read"/>
            <property name="CanGoNext" type="b" access="read"/>
            <property name="CanGoPrevious" type="b" access="read"/>
            <property name="CanPlay" type="b" access="read"/>
            <property name="CanPause" type="b" access="read"/>
            <property name="CanSeek" type="b" access="read"/>
            <property name="CanControl" type="b" access="read"/>
          </interface>
        </node>
        """
}
