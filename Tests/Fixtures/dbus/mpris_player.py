#!/usr/bin/python3
"""A minimal MPRIS2 media player for tests: owns org.mpris.MediaPlayer2.<name> and exports
both interfaces at /org/mpris/MediaPlayer2 with the properties playerctl reads, playing
one track. It checks the playerctl helper, and shows the daemon's MPRIS player what a
client expects.

    mpris_player.py --address unix:path=/tmp/x/bus --record /tmp/x/player.jsonl [--name backgroundertest]

Records (key "event"): each method called (Play, Pause, PlayPause, Stop, Next, Previous,
Seek offset, SetPosition track_id position, OpenUri uri, Raise, Quit), Set (interface,
property, value), Get/GetAll (interface).
"""

import dbus
import dbus.service

import peer

PATH = "/org/mpris/MediaPlayer2"
ROOT = "org.mpris.MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
TRACK = "/org/backgrounder/track/1"
LENGTH_US = 180_000_000


class Player(dbus.service.Object):
    def __init__(self, connection, record, identity):
        super().__init__(connection, PATH)
        self.record = record
        self.identity = identity
        self.status = "Stopped"
        self.position = 0
        self.volume = 1.0

    def root_properties(self):
        return {
            "CanQuit": dbus.Boolean(False),
            "CanRaise": dbus.Boolean(False),
            "HasTrackList": dbus.Boolean(False),
            "Identity": dbus.String(self.identity),
            "DesktopEntry": dbus.String("org.backgrounder.TestPlayer"),
            "SupportedUriSchemes": dbus.Array(["file"], signature="s"),
            "SupportedMimeTypes": dbus.Array(["audio/x-wav"], signature="s"),
        }

    def player_properties(self):
        return {
            "PlaybackStatus": dbus.String(self.status),
            "LoopStatus": dbus.String("None"),
            "Rate": dbus.Double(1.0),
            "Shuffle": dbus.Boolean(False),
            "Metadata": dbus.Dictionary(
                {
                    "mpris:trackid": dbus.ObjectPath(TRACK),
                    "mpris:length": dbus.Int64(LENGTH_US),
                    "xesam:title": dbus.String("Test tone"),
                    "xesam:artist": dbus.Array(["Backgrounder"], signature="s"),
                    "xesam:url": dbus.String("file:///tmp/tone.wav"),
                },
                signature="sv",
            ),
            "Volume": dbus.Double(self.volume),
            "Position": dbus.Int64(self.position),
            "MinimumRate": dbus.Double(1.0),
            "MaximumRate": dbus.Double(1.0),
            "CanGoNext": dbus.Boolean(True),
            "CanGoPrevious": dbus.Boolean(True),
            "CanPlay": dbus.Boolean(True),
            "CanPause": dbus.Boolean(True),
            "CanSeek": dbus.Boolean(True),
            "CanControl": dbus.Boolean(True),
        }

    def _properties(self, interface):
        if interface == ROOT:
            return self.root_properties()
        if interface == PLAYER:
            return self.player_properties()
        raise dbus.DBusException(
            f"interface: no interface {interface} here", name="org.freedesktop.DBus.Error.UnknownInterface"
        )

    # org.freedesktop.DBus.Properties

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        self.record("Get", interface=str(interface), property=str(name))
        properties = self._properties(interface)
        if name not in properties:
            raise dbus.DBusException(
                f"property: {interface} has no {name}", name="org.freedesktop.DBus.Error.UnknownProperty"
            )
        return properties[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        self.record("GetAll", interface=str(interface))
        return dbus.Dictionary(self._properties(interface), signature="sv")

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ssv", out_signature="")
    def Set(self, interface, name, value):
        self.record("Set", interface=str(interface), property=str(name), value=peer.plain(value))
        if interface == PLAYER and name == "Volume":
            self.volume = max(0.0, float(value))
            self._changed("Volume")
            return
        raise dbus.DBusException(f"property: {name} is read-only", name="org.freedesktop.DBus.Error.PropertyReadOnly")

    @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def _changed(self, *names):
        properties = self.player_properties()
        self.PropertiesChanged(
            PLAYER, dbus.Dictionary({name: properties[name] for name in names}, signature="sv"), dbus.Array([], signature="s")
        )

    def _set_status(self, status):
        if self.status != status:
            self.status = status
            self._changed("PlaybackStatus")

    # org.mpris.MediaPlayer2

    @dbus.service.method(ROOT, in_signature="", out_signature="")
    def Raise(self):
        self.record("Raise")

    @dbus.service.method(ROOT, in_signature="", out_signature="")
    def Quit(self):
        self.record("Quit")

    # org.mpris.MediaPlayer2.Player

    @dbus.service.method(PLAYER, in_signature="", out_signature="")
    def Play(self):
        self.record("Play")
        self._set_status("Playing")

    @dbus.service.method(PLAYER, in_signature="", out_signature="")
    def Pause(self):
        self.record("Pause")
        if self.status == "Playing":
            self._set_status("Paused")

    @dbus.service.method(PLAYER, in_signature="", out_signature="")
    def PlayPause(self):
        self.record("PlayPause")
        self._set_status("Paused" if self.status == "Playing" else "Playing")

    @dbus.service.method(PLAYER, in_signature="", out_signature="")
    def Stop(self):
        self.record("Stop")
        self.position = 0
        self._set_status("Stopped")

    @dbus.service.method(PLAYER, in_signature="", out_signature="")
    def Next(self):
        self.record("Next")

    @dbus.service.method(PLAYER, in_signature="", out_signature="")
    def Previous(self):
        self.record("Previous")

    @dbus.service.method(PLAYER, in_signature="x", out_signature="")
    def Seek(self, offset):
        self.record("Seek", offset=int(offset))
        self.position = min(max(0, self.position + int(offset)), LENGTH_US)
        self.Seeked(self.position)

    @dbus.service.method(PLAYER, in_signature="ox", out_signature="")
    def SetPosition(self, track_id, position):
        self.record("SetPosition", track_id=str(track_id), position=int(position))
        if str(track_id) == TRACK and 0 <= position <= LENGTH_US:
            self.position = int(position)
            self.Seeked(self.position)

    @dbus.service.method(PLAYER, in_signature="s", out_signature="")
    def OpenUri(self, uri):
        self.record("OpenUri", uri=str(uri))

    @dbus.service.signal(PLAYER, signature="x")
    def Seeked(self, position):
        pass


def main():
    def extra(parser):
        parser.add_argument("--name", default="backgroundertest", help="the name after org.mpris.MediaPlayer2.")

    options = peer.arguments("A minimal MPRIS2 media player for tests.", extra)
    connection = peer.connect(options.address)
    player = Player(connection, peer.Recorder(options.record), "Backgrounder test player")
    bus_name = "org.mpris.MediaPlayer2." + options.name
    name = peer.own(connection, bus_name)
    peer.run(connection)


if __name__ == "__main__":
    main()
