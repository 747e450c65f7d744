#!/usr/bin/python3
"""A UnifiedPush distributor for tests (D-Bus spec DBUS_0.2, interface Distributor1): owns
org.unifiedpush.Distributor.test and records every call it receives. There is no push
server: the test delivers messages through org.backgrounder.Test1.

    push_distributor.py --address unix:path=/tmp/x/bus --record /tmp/x/push.jsonl [--name test]

/org/unifiedpush/Distributor (org.unifiedpush.Distributor1):
    Register(s serviceName, s token, s description) -> (s result, s reason)
        replies REGISTRATION_SUCCEEDED (or the failure Test1.FailRegistrations set), then calls
        the connector's NewEndpoint(token, "https://push.example.test/up/<random>") at
        serviceName /org/unifiedpush/Connector; a known token keeps its endpoint.
    Unregister(s token)
        forgets the token and confirms with the connector's Unregistered("") (the spec's empty
        token for a confirmation).
Test control (org.backgrounder.Test1) on the same object:
    Send(s token, ay message, s messageId)   Connector1.Message to the token's connector
    Unregister(s token)                      Connector1.Unregistered(token): the distributor
                                             drops the app by itself
    ChangeEndpoint(s token) -> s             a new endpoint, announced with NewEndpoint
    FailRegistrations(s reason)              later Registers fail with this reason ("" = succeed)
    Endpoint(s token) -> s                   the token's current endpoint
Send, Unregister and ChangeEndpoint return once the connector has answered, and fail with
the connector's error (say, ServiceUnknown when nothing owns its name), so a test learns at
once that the daemon did not take the call.

Records (key "event"):
    Register: service, token, description, result, reason, endpoint
    Unregister: token, known
    Delivered / DeliveryFailed: method (NewEndpoint, Message, Unregistered), service, token,
        and error for a failure; Send: token, message (base64), id
"""

import secrets

import dbus
import dbus.service
from gi.repository import GLib

import peer

PATH = "/org/unifiedpush/Distributor"
INTERFACE = "org.unifiedpush.Distributor1"
CONNECTOR_PATH = "/org/unifiedpush/Connector"
CONNECTOR = "org.unifiedpush.Connector1"
SUCCEEDED = "REGISTRATION_SUCCEEDED"
FAILED = "REGISTRATION_FAILED"
REASONS = ("INTERNAL_ERROR", "NETWORK", "ACTION_REQUIRED", "VAPID_REQUIRED", "UNAUTHORIZED")
# How long a connector may take to answer before the call counts as failed (ms).
TIMEOUT_MS = 10_000


def new_endpoint():
    # 160 random bits, URL-safe, as the spec recommends for a capability URL.
    return "https://push.example.test/up/" + secrets.token_urlsafe(20)


class Distributor(dbus.service.Object):
    def __init__(self, connection, record):
        super().__init__(connection, PATH)
        self.bus = connection
        self.record = record
        self.registrations = {}  # token -> {"service", "description", "endpoint"}
        self.failure = ""

    def _call_connector(self, service, method, signature, arguments, token, done=None, failed=None):
        """Calls the connector without blocking the loop; records how it went."""

        def reply(*_values):
            self.record("Delivered", method=method, service=service, token=token)
            if done:
                done()

        def error(exception):
            self.record(
                "DeliveryFailed",
                method=method,
                service=service,
                token=token,
                error=exception.get_dbus_name() or str(exception),
            )
            if failed:
                failed(exception)

        self.bus.call_async(
            service, CONNECTOR_PATH, CONNECTOR, method, signature, arguments, reply, error, timeout=TIMEOUT_MS / 1000
        )

    # org.unifiedpush.Distributor1

    @dbus.service.method(INTERFACE, in_signature="sss", out_signature="ss")
    def Register(self, service, token, description):
        service, token, description = str(service), str(token), str(description)
        if self.failure:
            self.record(
                "Register", service=service, token=token, description=description, result=FAILED, reason=self.failure
            )
            return (FAILED, self.failure)
        if not token:
            self.record(
                "Register", service=service, token=token, description=description, result=FAILED, reason="INTERNAL_ERROR"
            )
            return (FAILED, "INTERNAL_ERROR")
        registration = self.registrations.get(token)
        if registration is None or registration["service"] != service:
            registration = {"service": service, "description": description, "endpoint": new_endpoint()}
            self.registrations[token] = registration
        registration["description"] = description
        endpoint = registration["endpoint"]
        self.record(
            "Register",
            service=service,
            token=token,
            description=description,
            result=SUCCEEDED,
            reason="",
            endpoint=endpoint,
        )
        # The endpoint goes to the connector in a call of its own, after this reply (a real
        # distributor may send it before or after; the connector must accept both).
        GLib.idle_add(self._announce, service, token, endpoint)
        return (SUCCEEDED, "")

    def _announce(self, service, token, endpoint):
        self._call_connector(service, "NewEndpoint", "ss", (token, endpoint), token)
        return GLib.SOURCE_REMOVE

    @dbus.service.method(INTERFACE, in_signature="s", out_signature="")
    def Unregister(self, token):
        token = str(token)
        registration = self.registrations.pop(token, None)
        self.record("Unregister", token=token, known=registration is not None)
        if registration is not None:
            self._call_connector(registration["service"], "Unregistered", "s", ("",), token)

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
        self._call_connector(
            registration["service"],
            "Message",
            "says",
            (token, dbus.ByteArray(bytes(message)), str(identifier)),
            token,
            done,
            failed,
        )

    def _message_cb(self, connection, message):
        # Test1's Unregister shares its name with Distributor1's; python-dbus names members
        # after Python attributes, so it is answered here.
        if (
            isinstance(message, dbus.lowlevel.MethodCallMessage)
            and message.get_interface() == peer.TEST_INTERFACE
            and message.get_member() == "Unregister"
        ):
            self._test_unregister(connection, message)
            return
        super()._message_cb(connection, message)

    def _test_unregister(self, connection, message):
        arguments = message.get_args_list()
        if len(arguments) != 1 or not isinstance(arguments[0], str):
            connection.send_message(
                dbus.lowlevel.ErrorMessage(
                    message, "org.freedesktop.DBus.Error.InvalidArgs", "Unregister: takes one string, the token"
                )
            )
            return
        token = str(arguments[0])
        registration = self.registrations.pop(token, None)
        if registration is None:
            known = ", ".join(sorted(self.registrations)) or "none"
            connection.send_message(
                dbus.lowlevel.ErrorMessage(
                    message, peer.TestError._dbus_error_name, f"token: no registration with token '{token}' (registered: {known})"
                )
            )
            return
        self.record("DistributorUnregister", token=token)

        def done():
            connection.send_message(dbus.lowlevel.MethodReturnMessage(message))

        def failed(exception):
            connection.send_message(
                dbus.lowlevel.ErrorMessage(message, exception.get_dbus_name() or peer.TestError._dbus_error_name, str(exception))
            )

        self._call_connector(registration["service"], "Unregistered", "s", (token,), token, done, failed)

    @dbus.service.method(peer.TEST_INTERFACE, in_signature="s", out_signature="s", async_callbacks=("done", "failed"))
    def ChangeEndpoint(self, token, done, failed):
        token = str(token)
        registration = self._registration(token)
        endpoint = new_endpoint()
        registration["endpoint"] = endpoint
        self.record("ChangeEndpoint", token=token, endpoint=endpoint)
        self._call_connector(
            registration["service"], "NewEndpoint", "ss", (token, endpoint), token, lambda: done(endpoint), failed
        )

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
    distributor = Distributor(connection, peer.Recorder(options.record))
    bus_name = "org.unifiedpush.Distributor." + options.name
    name = peer.own(connection, bus_name)
    peer.run(connection)


if __name__ == "__main__":
    main()
