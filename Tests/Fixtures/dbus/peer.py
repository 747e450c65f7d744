"""What every D-Bus test peer shares: the command line, the connection to a private bus,
the record file, D-Bus values turned into JSON, and a clean stop on SIGTERM.

Each peer appends one JSON object per line to its record file for everything it receives,
so a test reads back exactly what the daemon sent. The peers run under Debian's
/usr/bin/python3 with python3-dbus and python3-gi (the GLib main loop).
"""

import argparse
import base64
import json
import os
import signal
import sys

import dbus
import dbus.bus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

# The test-control interface every peer exports beside the real one: tests drive the peer
# through it (invoke an action, lock the session, send a push message).
TEST_INTERFACE = "org.backgrounder.Test1"


class TestError(dbus.DBusException):
    """An error a test-control call returns, with a message that says what was wrong."""

    _dbus_error_name = "org.backgrounder.Test1.Error"


# Decorates an Introspect override that adds what python-dbus cannot declare: calls answered
# in a message filter, properties, a second spec version's interfaces.
introspect_method = dbus.service.method(
    dbus.INTROSPECTABLE_IFACE,
    in_signature="",
    out_signature="s",
    path_keyword="object_path",
    connection_keyword="connection",
)


def arguments(description, extra=None):
    """Parses --address and --record (and whatever `extra` adds to the parser)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--address", required=True, help="the bus address (unix:path=...)")
    parser.add_argument("--record", required=True, help="the file that receives one JSON object a line")
    if extra:
        extra(parser)
    return parser.parse_args()


class Recorder:
    """Appends events to the record file, one complete line each, so a reader never sees
    half an object."""

    def __init__(self, path):
        self.path = path
        open(path, "a").close()

    def __call__(self, event, **fields):
        fields["event"] = event
        line = json.dumps(fields, sort_keys=True) + "\n"
        with open(self.path, "a") as record:
            record.write(line)
            record.flush()


def connect(address):
    """Connects to the bus at `address` on the GLib main loop."""
    DBusGMainLoop(set_as_default=True)
    return dbus.bus.BusConnection(address)


def own(connection, name):
    """Owns a well-known name, failing (not queueing) when another peer has it."""
    return dbus.service.BusName(name, bus=connection, do_not_queue=True)


def run(connection):
    """Runs the main loop until SIGTERM or SIGINT, or until the bus goes away; then exits 0.
    Leaving closes the connection, which releases the peer's names on the bus."""
    loop = GLib.MainLoop()
    for number in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, number, _quit, loop)
    connection.call_on_disconnection(lambda _connection: loop.quit())
    print("ready", flush=True)
    loop.run()
    sys.stdout.flush()
    # os._exit: python-dbus's finalizers would try to release names on a closed connection.
    os._exit(0)


def _quit(loop):
    loop.quit()
    return GLib.SOURCE_REMOVE


_SIGNATURES = {
    dbus.Boolean: "b",
    dbus.Byte: "y",
    dbus.Int16: "n",
    dbus.UInt16: "q",
    dbus.Int32: "i",
    dbus.UInt32: "u",
    dbus.Int64: "x",
    dbus.UInt64: "t",
    dbus.Double: "d",
    dbus.String: "s",
    dbus.ObjectPath: "o",
    dbus.Signature: "g",
    dbus.ByteArray: "ay",
}


def signature(value):
    """The D-Bus type of a received value, so a test can check that a hint went out as the
    spec's type (urgency is a byte, not an int32)."""
    kind = _SIGNATURES.get(type(value))
    if kind:
        return kind
    if isinstance(value, dbus.Dictionary):
        if value.signature:
            return "a{" + str(value.signature) + "}"
        key, item = next(iter(value.items()), ("", ""))
        return "a{" + signature(key) + signature(item) + "}"
    if isinstance(value, dbus.Array):
        if value.signature:
            return "a" + str(value.signature)
        return "a" + (signature(value[0]) if value else "v")
    if isinstance(value, dbus.Struct):
        return "(" + "".join(signature(item) for item in value) + ")"
    return "?"


def plain(value):
    """A D-Bus value as JSON: numbers, strings, booleans, lists (arrays and structs), objects
    (dictionaries); an array of bytes becomes a base64 string."""
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, dbus.Double):
        return float(value)
    if isinstance(value, (bytes, dbus.ByteArray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dbus.Dictionary) or isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, dbus.Array) and (value.signature == "y" or (value and isinstance(value[0], dbus.Byte))):
        return base64.b64encode(bytes(int(item) for item in value)).decode("ascii")
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return repr(value)
