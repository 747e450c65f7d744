#!/usr/bin/python3
"""A UnifiedPush distributor for tests: owns org.unifiedpush.Distributor.test and records every
call it receives. It speaks both D-Bus spec generations, as KDE's distributor does:
Distributor1 (spec DBUS_0.2, positional arguments) and Distributor2 (DBUS_0.3, a{sv}); a
registration is answered on the connector interface of the same generation (Connector1 or
Connector2). There is no push server: the test delivers messages through org.backgrounder.Test1.

    push_distributor.py --address unix:path=/tmp/x/bus --record /tmp/x/push.jsonl [--name test]

/org/unifiedpush/Distributor
  org.unifiedpush.Distributor1:
    Register(s serviceName, s token, s description) -> (s result, s reason)
        replies REGISTRATION_SUCCEEDED (or the failure Test1.FailRegistrations set), then calls
        the connector's NewEndpoint(token, "https://push.example.test/up/<random>") at
        serviceName /org/unifiedpush/Connector; a known token keeps its endpoint.
    Unregister(s token)
        forgets the token and confirms with the connector's Unregistered("") (spec 0.2: an
        empty token confirms).
  org.unifiedpush.Distributor2:
    Register(a{sv} {service, token, description?, vapid?}) -> a{sv} {success, reason?}
    Unregister(a{sv} {token}) -> a{sv} {}; confirmed with Connector2.Unregistered({token})
Test control (org.backgrounder.Test1) on the same object:
    Send(s token, ay message, s messageId)   Message to the token's connector
    Unregister(s token)                      Unregistered(token): the distributor drops the
                                             app by itself
    ChangeEndpoint(s token) -> s             a new endpoint, announced with NewEndpoint
    FailRegistrations(s reason)              later Registers fail with this reason ("" = succeed)
    Endpoint(s token) -> s                   the token's current endpoint
Send, Unregister and ChangeEndpoint return once the connector has answered, and fail with
the connector's error (say, ServiceUnknown when nothing owns its name), so a test learns at
once that the daemon did not take the call.

Records (key "event"):
    Register: version (1 or 2), service, token, description, vapid (2), result, reason, endpoint
    Unregister: version, token, known
    Delivered / DeliveryFailed: method (NewEndpoint, Message, Unregistered), interface,
        service, token, reply (Delivered) or error (DeliveryFailed)
    Send: token, message (base64), id; DistributorUnregister: token; ChangeEndpoint: token,
        endpoint; FailRegistrations: reason
"""

import secrets

import dbus
import dbus.service
from gi.repository import GLib

import peer

PATH = "/org/unifiedpush/Distributor"
DISTRIBUTOR1 = "org.unifiedpush.Distributor1"
DISTRIBUTOR2 = "org.unifiedpush.Distributor2"
CONNECTOR_PATH = "/org/unifiedpush/Connector"
CONNECTOR1 = "org.unifiedpush.Connector1"
CONNECTOR2 = "org.unifiedpush.Connector2"
SUCCEEDED = "REGISTRATION_SUCCEEDED"
FAILED = "REGISTRATION_FAILED"
REASONS = ("INTERNAL_ERROR", "NETWORK", "ACTION_REQUIRED", "VAPID_REQUIRED", "UNAUTHORIZED")
# How long a connector may take to answer before the call counts as failed (seconds).
TIMEOUT = 10.0

# python-dbus introspects only what its decorators declare; Distributor2's methods share
# their names with Distributor1's, so they are answered in _message_cb and declared here.
DISTRIBUTOR2_XML = """  <interface name="org.unifiedpush.Distributor2">
    <method name="Register">
      <arg name="args" type="a{sv}" direction="in"/>
      <arg name="res" type="a{sv}" direction="out"/>
    </method>
    <method name="Unregister">
      <arg name="args" type="a{sv}" direction="in"/>
      <arg name="res" type="a{sv}" direction="out"/>
    </method>
  </interface>
"""


def new_endpoint():
    # 160 random bits, URL-safe, as the spec recommends for a capability URL.
    return "https://push.example.test/up/" + secrets.token_urlsafe(20)


def variants(**values):
    """An a{sv} dictionary of strings and byte arrays."""
    return dbus.Dictionary(values, signature="sv")


class Distributor(dbus.service.Object):
    def __init__(self, connection, record):
        super().__init__(connection, PATH)
        self.bus = connection
        self.record = record
        self.registrations = {}  # token -> {"service", "description", "endpoint", "version"}
        self.failure = ""

    # Calls to connectors

    def _deliver(self, registration, method, token, done=None, failed=None, **values):
        """Calls NewEndpoint, Message or Unregistered on the registration's connector, in its
        generation's form, without blocking the loop; records how it went."""
        service = registration["service"]
        if registration["version"] == 2:
            interface = CONNECTOR2
            fields = {"token": dbus.String(token)}
            for key, value in values.items():
                if key == "confirmed_token":
                    continue  # spec 0.3 always sends the token
                if key == "message":
                    fields["message"] = dbus.ByteArray(value)
                elif value != "" or key != "id":
                    fields[key] = dbus.String(value)
            signature, arguments = "a{sv}", (dbus.Dictionary(fields, signature="sv"),)
        else:
            interface = CONNECTOR1
            if method == "NewEndpoint":
                signature, arguments = "ss", (token, values["endpoint"])
            elif method == "Message":
                signature, arguments = "says", (token, dbus.ByteArray(values["message"]), values["id"])
            else:
                signature, arguments = "s", (values.get("confirmed_token", token),)

        def reply(*answer):
            self.record(
                "Delivered", method=method, interface=interface, service=service, token=token, reply=peer.plain(answer)
            )
            if done:
                done()

        def error(exception):
            self.record(
                "DeliveryFailed",
                method=method,
                interface=interface,
                service=service,
                token=token,
                error=exception.get_dbus_name() or str(exception),
            )
            if failed:
                failed(exception)

        self.bus.call_async(
            service, CONNECTOR_PATH, interface, method, signature, arguments, reply, error, timeout=TIMEOUT
        )

    # Registration, shared by both generations

    def _register(self, version, service, token, description, vapid=None):
        fields = {"version": version, "service": service, "token": token, "description": description}
        if vapid is not None:
            fields["vapid"] = vapid
        if self.failure or not service or not token:
            reason = self.failure or "INTERNAL_ERROR"
            self.record("Register", result=FAILED, reason=reason, **fields)
            return FAILED, reason
        registration = self.registrations.get(token)
        if registration is None or registration["service"] != service:
            registration = {"service": service, "endpoint": new_endpoint()}
            self.registrations[token] = registration
        registration["description"] = description
        registration["version"] = version
        self.record("Register", result=SUCCEEDED, reason="", endpoint=registration["endpoint"], **fields)
        # The endpoint goes to the connector in a call of its own, after this reply (a real
        # distributor may send it before or after; the connector must accept both).
        GLib.idle_add(self._announce, token)
        return SUCCEEDED, ""

    def _announce(self, token):
        registration = self.registrations.get(token)
        if registration is not None:
            self._deliver(registration, "NewEndpoint", token, endpoint=registration["endpoint"])
        return GLib.SOURCE_REMOVE

    def _unregister(self, version, token):
        registration = self.registrations.pop(token, None)
        self.record("Unregister", version=version, token=token, known=registration is not None)
        if registration is not None:
            # Spec 0.2 confirms with an empty token; 0.3 always sends the token.
            self._deliver(registration, "Unregistered", token, confirmed_token="")

    # org.unifiedpush.Distributor1

    @dbus.service.method(DISTRIBUTOR1, in_signature="sss", out_signature="ss")
    def Register(self, service, token, description):
        return self._register(1, str(service), str(token), str(description))

    @dbus.service.method(DISTRIBUTOR1, in_signature="s", out_signature="")
    def Unregister(self, token):
        self._unregister(1, str(token))

    # Calls answered by hand: Distributor2's and Test1's members that share a name with
    # Distributor1's (python-dbus names members after Python attributes).

    def _message_cb(self, connection, message):
        if isinstance(message, dbus.lowlevel.MethodCallMessage):
            interface, member = message.get_interface(), message.get_member()
            if interface == DISTRIBUTOR2 and member in ("Register", "Unregister"):
                self._distributor2(connection, message, member)
                return
            if interface == peer.TEST_INTERFACE and member == "Unregister":
                self._test_unregister(connection, message)
                return
        super()._message_cb(connection, message)

    def _distributor2(self, connection, message, member):
        arguments = message.get_args_list()
        if message.get_signature() != "a{sv}":
            reply = dbus.lowlevel.ErrorMessage(
                message, "org.freedesktop.DBus.Error.InvalidArgs", f"{member}: takes one a{{sv}} dictionary"
            )
        else:
            fields = {str(key): value for key, value in arguments[0].items()}
            token = str(fields.get("token", ""))
            if member == "Register":
                vapid = fields.get("vapid")
                result, reason = self._register(
                    2,
                    str(fields.get("service", "")),
                    token,
                    str(fields.get("description", "")),
                    None if vapid is None else str(vapid),
                )
                answer = {"success": result}
                if reason:
                    answer["reason"] = reason
            else:
                self._unregister(2, token)
                answer = {}
            reply = dbus.lowlevel.MethodReturnMessage(message)
            reply.append(dbus.Dictionary(answer, signature="sv"), signature="a{sv}")
        if not message.get_no_reply():
            connection.send_message(reply)

    @peer.introspect_method
    def Introspect(self, object_path, connection):
        xml = dbus.service.Object.Introspect(self, object_path, connection)
        return xml.replace("</node>", DISTRIBUTOR2_XML + "</node>")

    # org.backgrounder.Test1

    def _registration(self, token):
        registration = self.registrations.get(token)
        if registration is None:
            known = ", ".join(sorted(self.registrations)) or "none"
            raise peer.TestError(f"token: no registration with token '{token}' (registered: {known})")
        return registration

    @dbus.service.method(
        peer.TEST_INTERFACE,
        in_signature="says",
        out_signature="",
        byte_arrays=True,
        async_callbacks=("done", "failed"),
    )
    def Send(self, token, message, identifier, done, failed):
        token = str(token)
        registration = self._registration(token)
        self.record("Send", token=token, message=peer.plain(bytes(message)), id=str(identifier))
        self._deliver(registration, "Message", token, done, failed, message=bytes(message), id=str(identifier))

    def _test_unregister(self, connection, message):
        arguments = message.get_args_list()
        if message.get_signature() != "s":
            connection.send_message(
                dbus.lowlevel.ErrorMessage(
                    message, "org.freedesktop.DBus.Error.InvalidArgs", "Unregister: takes one string, the token"
                )
            )
            return
        token = str(arguments[0])
        try:
            registration = self._registration(token)
        except peer.TestError as error:
            connection.send_message(dbus.lowlevel.ErrorMessage(message, peer.TestError._dbus_error_name, str(error)))
            return
        del self.registrations[token]
        self.record("DistributorUnregister", token=token)

        def done():
            connection.send_message(dbus.lowlevel.MethodReturnMessage(message))

        def failed(exception):
            name = exception.get_dbus_name() or peer.TestError._dbus_error_name
            connection.send_message(dbus.lowlevel.ErrorMessage(message, name, str(exception)))

        self._deliver(registration, "Unregistered", token, done, failed)

    @dbus.service.method(peer.TEST_INTERFACE, in_signature="s", out_signature="s", async_callbacks=("done", "failed"))
    def ChangeEndpoint(self, token, done, failed):
        token = str(token)
        registration = self._registration(token)
        endpoint = new_endpoint()
        registration["endpoint"] = endpoint
        self.record("ChangeEndpoint", token=token, endpoint=endpoint)
        self._deliver(registration, "NewEndpoint", token, lambda: done(endpoint), failed, endpoint=endpoint)

    @dbus.service.method(peer.TEST_INTERFACE, in_signature="s", out_signature="s")
    def Endpoint(self, token):
        return self._registration(str(token))["endpoint"]

    @dbus.service.method(peer.TEST_INTERFACE, in_signature="s", out_signature="")
    def FailRegistrations(self, reason):
        reason = str(reason)
        if reason and reason not in REASONS:
            raise peer.TestError(f"reason: '{reason}' is not one of {', '.join(REASONS)} (or '' to succeed)")
        self.record("FailRegistrations", reason=reason)
        self.failure = reason


def main():
    def extra(parser):
        parser.add_argument("--name", default="test", help="the name after org.unifiedpush.Distributor.")

    options = peer.arguments("A UnifiedPush distributor for tests.", extra)
    connection = peer.connect(options.address)
    distributor = Distributor(connection, peer.Recorder(options.record))  # noqa: F841 (exported)
    name = peer.own(connection, "org.unifiedpush.Distributor." + options.name)  # noqa: F841 (owned)
    peer.run(connection)


if __name__ == "__main__":
    main()
