#!/usr/bin/python3
"""A UnifiedPush connector for tests (D-Bus spec DBUS_0.2, interface Connector1): owns an
app's service name, answers at /org/unifiedpush/Connector and records what the distributor
calls. It checks push_distributor.py without the daemon, and shows the connector's side of
the protocol in a few lines.

    push_connector.py --address unix:path=/tmp/x/bus --record /tmp/x/app.jsonl \
        --service org.example.App [--register TOKEN --description TEXT --distributor NAME]

With --register it registers at start-up with the first org.unifiedpush.Distributor.* name on
the bus (or org.unifiedpush.Distributor.NAME) and records the reply.

Records (key "event"):
    NewEndpoint: token, endpoint; Message: token, message (base64), id; Unregistered: token
    Registered: distributor, token, result, reason   (or RegisterFailed: distributor, error)
"""

import dbus
import dbus.service

import peer

PATH = "/org/unifiedpush/Connector"
INTERFACE = "org.unifiedpush.Connector1"
PREFIX = "org.unifiedpush.Distributor."


class Connector(dbus.service.Object):
    def __init__(self, connection, record):
        super().__init__(connection, PATH)
        self.record = record

    @dbus.service.method(INTERFACE, in_signature="ss", out_signature="")
    def NewEndpoint(self, token, endpoint):
        self.record("NewEndpoint", token=str(token), endpoint=str(endpoint))

    @dbus.service.method(INTERFACE, in_signature="says", out_signature="", byte_arrays=True)
    def Message(self, token, message, identifier):
        self.record("Message", token=str(token), message=peer.plain(bytes(message)), id=str(identifier))

    @dbus.service.method(INTERFACE, in_signature="s", out_signature="")
    def Unregistered(self, token):
        self.record("Unregistered", token=str(token))


def register(connection, record, options):
    """Registers with a distributor, as a connector does at start-up."""
    names = connection.list_names()
    if options.distributor:
        distributor = PREFIX + options.distributor
    else:
        candidates = sorted(str(name) for name in names if str(name).startswith(PREFIX))
        distributor = candidates[0] if candidates else ""
    if not distributor:
        record("RegisterFailed", distributor="", error="no org.unifiedpush.Distributor.* name on the bus")
        return

    def reply(result, reason):
        record("Registered", distributor=distributor, token=options.register, result=str(result), reason=str(reason))

    def error(exception):
        record("RegisterFailed", distributor=distributor, error=exception.get_dbus_name() or str(exception))

    connection.call_async(
        distributor,
        "/org/unifiedpush/Distributor",
        "org.unifiedpush.Distributor1",
        "Register",
        "sss",
        (options.service, options.register, options.description),
        reply,
        error,
    )


def main():
    def extra(parser):
        parser.add_argument("--service", required=True, help="the app's well-known name")
        parser.add_argument("--register", help="register at start-up with this token")
        parser.add_argument("--description", default="", help="the registration's description")
        parser.add_argument("--distributor", help="the name after org.unifiedpush.Distributor. (default: the first)")

    options = peer.arguments("A UnifiedPush connector for tests.", extra)
    record = peer.Recorder(options.record)
    connection = peer.connect(options.address)
    connector = Connector(connection, record)
    name = peer.own(connection, options.service)
    if options.register:
        register(connection, record, options)
    peer.run(connection)


if __name__ == "__main__":
    main()
