#!/usr/bin/python3
"""A desktop notification server for tests: owns org.freedesktop.Notifications at
/org/freedesktop/Notifications (Desktop Notifications Specification 1.2) and records every
call it receives. Nothing is shown and nothing expires on its own: the test closes
notifications through org.backgrounder.Test1 as a user would.

    notification_server.py --address unix:path=/tmp/x/bus --record /tmp/x/notifications.jsonl

Records (one JSON object a line, key "event"):
    Notify: app_name, replaces_id, app_icon, summary, body, actions (flat list), hints
        (values as JSON), hint_types (each hint's D-Bus signature), timeout, id (the one returned)
    CloseNotification: id, existed
    GetCapabilities, GetServerInformation
    InvokeAction: id, key; Dismiss: id; Expire: id   (test-control calls)
"""

import dbus
import dbus.service

import peer

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
INTERFACE = "org.freedesktop.Notifications"

# NotificationClosed reasons (the specification's numbers).
EXPIRED, DISMISSED, CLOSED = 1, 2, 3


class NotificationServer(dbus.service.Object):
    def __init__(self, connection, record):
        super().__init__(connection, PATH)
        self.record = record
        self.next_id = 1
        self.live = {}  # id -> the Notify call's actions

    # org.freedesktop.Notifications

    @dbus.service.method(INTERFACE, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, timeout):
        # A replaces_id that is not live gets a new id, as the specification says.
        if replaces_id != 0 and replaces_id in self.live:
            identifier = int(replaces_id)
        else:
            identifier = self.next_id
            self.next_id += 1
        self.live[identifier] = [str(item) for item in actions]
        self.record(
            "Notify",
            app_name=str(app_name),
            replaces_id=int(replaces_id),
            app_icon=str(app_icon),
            summary=str(summary),
            body=str(body),
            actions=[str(item) for item in actions],
            hints=peer.plain(hints),
            hint_types={str(key): peer.signature(value) for key, value in hints.items()},
            timeout=int(timeout),
            id=identifier,
        )
        return dbus.UInt32(identifier)

    @dbus.service.method(INTERFACE, in_signature="u", out_signature="")
    def CloseNotification(self, identifier):
        existed = identifier in self.live
        self.record("CloseNotification", id=int(identifier), existed=existed)
        if existed:
            del self.live[identifier]
            self.NotificationClosed(identifier, CLOSED)

    @dbus.service.method(INTERFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        self.record("GetCapabilities")
        return dbus.Array(["actions", "body", "persistence"], signature="s")

    @dbus.service.method(INTERFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        self.record("GetServerInformation")
        return ("Backgrounder test notifications", "Backgrounder", "1.0", "1.2")

    @dbus.service.signal(INTERFACE, signature="uu")
    def NotificationClosed(self, identifier, reason):
        pass

    @dbus.service.signal(INTERFACE, signature="us")
    def ActionInvoked(self, identifier, key):
        pass

    @dbus.service.signal(INTERFACE, signature="us")
    def ActivationToken(self, identifier, token):
        pass

    # org.backgrounder.Test1: what a user does to a notification

    def _require(self, identifier):
        if identifier not in self.live:
            known = ", ".join(str(key) for key in sorted(self.live)) or "none"
            raise peer.TestError(f"id: notification {identifier} is not showing (showing: {known})")

    @dbus.service.method(peer.TEST_INTERFACE, in_signature="us", out_signature="")
    def InvokeAction(self, identifier, key):
        """The user clicks an action (key "default" is the body): ActivationToken,
        ActionInvoked, then the notification closes as dismissed (reason 2)."""
        self._require(identifier)
        actions = self.live[identifier]
        keys = actions[0::2]
        if key not in keys:
            raise peer.TestError(f"key: notification {identifier} has no action '{key}' (actions: {[str(k) for k in keys]})")
        self.record("InvokeAction", id=int(identifier), key=str(key))
        del self.live[identifier]
        self.ActivationToken(identifier, f"backgrounder-test-token-{identifier}")
        self.ActionInvoked(identifier, key)
        self.NotificationClosed(identifier, DISMISSED)

    @dbus.service.method(peer.TEST_INTERFACE, in_signature="u", out_signature="")
    def Dismiss(self, identifier):
        """The user closes the notification (reason 2)."""
        self._require(identifier)
        self.record("Dismiss", id=int(identifier))
        del self.live[identifier]
        self.NotificationClosed(identifier, DISMISSED)

    @dbus.service.method(peer.TEST_INTERFACE, in_signature="u", out_signature="")
    def Expire(self, identifier):
        """The notification times out (reason 1)."""
        self._require(identifier)
        self.record("Expire", id=int(identifier))
        del self.live[identifier]
        self.NotificationClosed(identifier, EXPIRED)

    @dbus.service.method(peer.TEST_INTERFACE, in_signature="", out_signature="au")
    def Showing(self):
        """The ids of the notifications still showing, in order."""
        return dbus.Array(sorted(self.live), signature="u")


def main():
    options = peer.arguments("A desktop notification server for tests.")
    connection = peer.connect(options.address)
    server = NotificationServer(connection, peer.Recorder(options.record))
    name = peer.own(connection, NAME)
    peer.run(connection)


if __name__ == "__main__":
    main()
