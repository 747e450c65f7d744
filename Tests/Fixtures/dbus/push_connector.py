#!/usr/bin/python3
"""A UnifiedPush connector for tests: owns an app's service name, answers at
/org/unifiedpush/Connector on both Connector1 (spec DBUS_0.2) and Connector2 (DBUS_0.3), and
records what the distributor calls. It checks push_distributor.py without the daemon, and
shows the connector's side of the protocol in a few lines.

    push_connector.py --address unix:path=/tmp/x/bus --record /tmp/x/app.jsonl \\
        --service org.example.App [--register TOKEN --description TEXT --distributor NAME --version 1|2]

With --register it registers at start-up with the first org.unifiedpush.Distributor.* name on
the bus (or org.unifiedpush.Distributor.NAME), through Distributor1 or Distributor2, and
records the reply.

Records (key "event"; interface says which generation was called):
    NewEndpoint: token, endpoint; Message: token, message (base64), id; Unregistered: token
    Registered: distributor, version, token, result, reason   (or RegisterFailed: error)
"""

import dbus
import dbus.service

import peer

PATH = "/org/unifiedpush/Connector"
CONNECTOR1 = "org.unifiedpush.Connector1"
CONNECTOR2 = "org.unifiedpush.Connector2"
PREFIX = "org.unifiedpush.Distributor."

CONNECTOR2_XML = """  <interface name="org.unifiedpush.Connector2">
""" + "".join(
    f"""    <method name="{name}">
      <arg name="args" type="a{{sv}}" direction="in"/>
      <arg name="res" type="a{{sv}}" direction="out"/>
    </method>
"""
    for name in ("Message", "NewEndpoint", "Unregistered")
) + """  </interface>
"""


class Connector(dbus.service.Object):
    def __init__(self, connection, record):
        super().__init__(connection, PATH)
        self.record = record

    # org.unifiedpush.Connector1

    @dbus.service.method(CONNECTOR1, in_signature="ss", out_signature="")
    def NewEndpoint(self, token, endpoint):
        self.record("NewEndpoint", interface=CONNECTOR1, token=str(token), endpoint=str(endpoint))

    @dbus.service.method(CONNECTOR1, in_signature="says", out_signature="", byte_arrays=True)
    def Message(self, token, message, identifier):
        self.record(
            "Message", interface=CONNECTOR1, token=str(token), message=peer.plain(bytes(message)), id=str(identifier)
        )

    @dbus.service.method(CONNECTOR1, in_signature="s", out_signature="")
    def Unregistered(self, token):
        self.record("Unregistered", interface=CONNECTOR1, token=str(token))

    # org.unifiedpush.Connector2: same member names, so answered by hand

    def _message_cb(self, connection, message):
        if (
            isinstance(message, dbus.lowlevel.MethodCallMessage)
            and message.get_interface() == CONNECTOR2
            and message.get_member() in ("Message", "NewEndpoint", "Unregistered")
        ):
            self._connector2(connection, message)
            return
        super()._message_cb(connection, message)

    def _connector2(self, connection, message):
        member = message.get_member()
        if message.get_signature() != "a{sv}":
            reply = dbus.lowlevel.ErrorMessage(
                message, "org.freedesktop.DBus.Error.InvalidArgs", f"{member}: takes one a{{sv}} dictionary"
            )
        else:
            fields = {str(key): value for key, value in message.get_args_list(byte_arrays=True)[0].items()}
            token = str(fields.get("token", ""))
            answer = {}
            if member == "Message":
                identifier = str(fields.get("id", ""))
                self.record(
                    "Message",
                    interface=CONNECTOR2,
                    token=token,
                    message=peer.plain(bytes(fields.get("message", b""))),
                    id=identifier,
                )
                if identifier:
                    answer["id"] = identifier  # acknowledges the message
            elif member == "NewEndpoint":
                self.record("NewEndpoint", interface=CONNECTOR2, token=token, endpoint=str(fields.get("endpoint", "")))
            else:
                self.record("Unregistered", interface=CONNECTOR2, token=token)
            reply = dbus.lowlevel.MethodReturnMessage(message)
            reply.append(dbus.Dictionary(answer, signature="sv"), signature="a{sv}")
        if not message.get_no_reply():
            connection.send_message(reply)

    @peer.introspect_method
    def Introspect(self, object_path, connection):
        xml = dbus.service.Object.Introspect(self, object_path, connection)
        return xml.replace("</node>", CONNECTOR2_XML + "</node>")


def register(connection, record, options):
    """Registers with a distributor, as a connector does at start-up."""
    if options.distributor:
        distributor = PREFIX + options.distributor
    else:
        candidates = sorted(str(name) for name in connection.list_names() if str(name).startswith(PREFIX))
        distributor = candidates[0] if candidates else ""
    if not distributor:
        record("RegisterFailed", distributor="", error="no org.unifiedpush.Distributor.* name on the bus")
        return

    def reply(*answer):
        if options.version == 2:
            fields = answer[0]
            result, reason = str(fields.get("success", "")), str(fields.get("reason", ""))
        else:
            result, reason = str(answer[0]), str(answer[1])
        record(
            "Registered",
            distributor=distributor,
            version=options.version,
            token=options.register,
            result=result,
            reason=reason,
        )

    def error(exception):
        record("RegisterFailed", distributor=distributor, error=exception.get_dbus_name() or str(exception))

    if options.version == 2:
        interface, signature = "org.unifiedpush.Distributor2", "a{sv}"
        arguments = (
            dbus.Dictionary(
                {"service": options.service, "token": options.register, "description": options.description},
                signature="sv",
            ),
        )
    else:
        interface, signature = "org.unifiedpush.Distributor1", "sss"
        arguments = (options.service, options.register, options.description)
    connection.call_async(
        distributor, "/org/unifiedpush/Distributor", interface, "Register", signature, arguments, reply, error
    )


def main():
    def extra(parser):
        parser.add_argument("--service", required=True, help="the app's well-known name")
        parser.add_argument("--register", help="register at start-up with this token")
        parser.add_argument("--description", default="", help="the registration's description")
        parser.add_argument("--distributor", help="the name after org.unifiedpush.Distributor. (default: the first)")
        parser.add_argument("--version", type=int, choices=(1, 2), default=1, help="Distributor1 or Distributor2")

    options = peer.arguments("A UnifiedPush connector for tests.", extra)
    record = peer.Recorder(options.record)
    connection = peer.connect(options.address)
    connector = Connector(connection, record)  # noqa: F841 (exported)
    name = peer.own(connection, options.service)  # noqa: F841 (owned)
    if options.register:
        register(connection, record, options)
    peer.run(connection)


if __name__ == "__main__":
    main()
