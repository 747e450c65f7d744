#!/usr/bin/python3
"""A stand-in for systemd-logind with one session, for tests: owns org.freedesktop.login1
(on a private bus that plays the system bus) and records every call it receives.

    logind.py --address unix:path=/tmp/x/system --record /tmp/x/logind.jsonl [--uid N --user NAME]

Manager /org/freedesktop/login1 (org.freedesktop.login1.Manager):
    GetSession(s) -> o        "1", "auto" and "self" name the one session
    GetSessionByPID(u) -> o   any pid is in the one session
    ListSessions() -> a(susso)
    LockSession(s), UnlockSession(s), LockSessions(), UnlockSessions()
Session /org/freedesktop/login1/session/_31 (id "1"; org.freedesktop.login1.Session):
    properties Id, User, Name, Active, State, LockedHint, IdleHint, Type, Class, Seat, Remote
    through org.freedesktop.DBus.Properties (Get, GetAll; changes emit PropertiesChanged)
    Lock(), Unlock() emit the Lock and Unlock signals; SetLockedHint(b), SetIdleHint(b)
/org/freedesktop/login1/session/auto answers like the session, but, as in logind, signals
come only from the session's real path.
Test control (org.backgrounder.Test1) on the session: Lock(), Unlock(), SetLockedHint(b),
SetActive(b).

Records (key "event"): the method's name and its arguments, e.g.
    {"event": "GetSessionByPID", "pid": 42}, {"event": "Get", "path": ..., "property": "LockedHint"}
"""

import os
import pwd

import dbus
import dbus.service

import peer

NAME = "org.freedesktop.login1"
MANAGER_PATH = "/org/freedesktop/login1"
MANAGER = "org.freedesktop.login1.Manager"
SESSION = "org.freedesktop.login1.Session"
SESSION_ID = "1"
# logind escapes session ids into object paths as sd_bus_path_encode does: "1" -> "_31".
SESSION_PATH = "/org/freedesktop/login1/session/_31"
AUTO_PATH = "/org/freedesktop/login1/session/auto"
SELF_PATH = "/org/freedesktop/login1/session/self"


class SessionState:
    """The one session's properties, shared by its real path and its aliases."""

    def __init__(self, uid, user):
        self.uid = uid
        self.user = user
        self.active = True
        self.locked = False
        self.idle = False

    def properties(self):
        return {
            "Id": dbus.String(SESSION_ID),
            "User": dbus.Struct(
                (dbus.UInt32(self.uid), dbus.ObjectPath(f"/org/freedesktop/login1/user/_{self.uid}")),
                signature="uo",
            ),
            "Name": dbus.String(self.user),
            "Active": dbus.Boolean(self.active),
            "State": dbus.String("active" if self.active else "online"),
            "LockedHint": dbus.Boolean(self.locked),
            "IdleHint": dbus.Boolean(self.idle),
            "Type": dbus.String("wayland"),
            "Class": dbus.String("user"),
            "Seat": dbus.Struct(
                (dbus.String("seat0"), dbus.ObjectPath("/org/freedesktop/login1/seat/seat0")), signature="so"
            ),
            "Remote": dbus.Boolean(False),
        }


class Session(dbus.service.Object):
    """The session at one path. The real one (`real` is None) emits the signals; an alias
    (auto, self) forwards to it."""

    def __init__(self, connection, path, state, record, real=None):
        super().__init__(connection, path)
        self.path = path
        self.state = state
        self.record = record
        self.real = real or self

    # org.freedesktop.DBus.Properties

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        self.record("Get", path=self.path, interface=str(interface), property=str(name))
        properties = self._properties(interface)
        if name not in properties:
            raise dbus.DBusException(
                f"property: {SESSION} has no property {name}",
                name="org.freedesktop.DBus.Error.UnknownProperty",
            )
        return properties[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        self.record("GetAll", path=self.path, interface=str(interface))
        return dbus.Dictionary(self._properties(interface), signature="sv")

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ssv", out_signature="")
    def Set(self, interface, name, value):
        self.record("Set", path=self.path, interface=str(interface), property=str(name))
        raise dbus.DBusException(
            f"property: {name} is read-only", name="org.freedesktop.DBus.Error.PropertyReadOnly"
        )

    @dbus.service.signal(dbus.PROPERTIES_IFACE, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def _properties(self, interface):
        if interface not in (SESSION, ""):
            raise dbus.DBusException(
                f"interface: this object has no interface {interface}",
                name="org.freedesktop.DBus.Error.UnknownInterface",
            )
        return self.state.properties()

    def changed(self, *names):
        """Announces changed properties from the real path, with their new values, as logind
        does (never on the auto or self alias)."""
        properties = self.state.properties()
        self.real.PropertiesChanged(
            SESSION,
            dbus.Dictionary({key: properties[key] for key in names}, signature="sv"),
            dbus.Array([], signature="s"),
        )

    # org.freedesktop.login1.Session

    @dbus.service.signal(SESSION, signature="")
    def Lock(self):
        pass

    @dbus.service.signal(SESSION, signature="")
    def Unlock(self):
        pass

    def _message_cb(self, connection, message):
        # Lock and Unlock are methods as well as signals of the Session interface, and Test1
        # repeats the names (Lock, Unlock, SetLockedHint). python-dbus names members after
        # Python attributes, so these calls are answered here; the attributes stay the
        # signals and the Session's SetLockedHint.
        if isinstance(message, dbus.lowlevel.MethodCallMessage):
            interface = message.get_interface()
            member = message.get_member()
            handler = None
            if interface in (SESSION, peer.TEST_INTERFACE, None) and member in ("Lock", "Unlock"):
                handler = self._test_lock if member == "Lock" else self._test_unlock
            elif interface == peer.TEST_INTERFACE:
                handler = {"SetLockedHint": self._test_set_locked, "SetActive": self._test_set_active}.get(member)
            if handler:
                self._answer(connection, message, handler)
                return
        super()._message_cb(connection, message)

    def _answer(self, connection, message, handler):
        arguments = message.get_args_list()
        try:
            handler(*arguments)
        except TypeError:
            reply = dbus.lowlevel.ErrorMessage(
                message,
                "org.freedesktop.DBus.Error.InvalidArgs",
                f"{message.get_member()}: wrong arguments {message.get_signature()!s}",
            )
        else:
            self.record(
                str(message.get_member()),
                path=self.path,
                interface=str(message.get_interface() or ""),
                arguments=peer.plain(arguments),
            )
            reply = dbus.lowlevel.MethodReturnMessage(message)
        if not message.get_no_reply():
            connection.send_message(reply)

    def _test_lock(self):
        self.real.Lock()

    def _test_unlock(self):
        self.real.Unlock()

    def _test_set_locked(self, locked):
        if not isinstance(locked, dbus.Boolean):
            raise TypeError("locked")
        self.set_locked(bool(locked))

    def _test_set_active(self, active):
        if not isinstance(active, dbus.Boolean):
            raise TypeError("active")
        if self.state.active != bool(active):
            self.state.active = bool(active)
            self.changed("Active", "State")

    @peer.introspect_method
    def Introspect(self, object_path, connection):
        # python-dbus declares only decorated members: add the calls answered in _message_cb
        # and the properties, so busctl/gdbus introspect show the session as logind's.
        xml = dbus.service.Object.Introspect(self, object_path, connection)
        properties = "".join(
            f'    <property name="{name}" type="{peer.signature(value)}" access="read"/>\n'
            for name, value in self.state.properties().items()
        )
        session = '    <method name="Lock"/>\n    <method name="Unlock"/>\n' + properties
        xml = xml.replace(f'<interface name="{SESSION}">\n', f'<interface name="{SESSION}">\n' + session, 1)
        test = (
            f'  <interface name="{peer.TEST_INTERFACE}">\n'
            '    <method name="Lock"/>\n    <method name="Unlock"/>\n'
            '    <method name="SetLockedHint"><arg name="locked" type="b" direction="in"/></method>\n'
            '    <method name="SetActive"><arg name="active" type="b" direction="in"/></method>\n'
            "  </interface>\n"
        )
        return xml.replace("</node>", test + "</node>")

    @dbus.service.method(SESSION, in_signature="b", out_signature="")
    def SetLockedHint(self, locked):
        """What a screen locker calls once the screen is (un)locked."""
        self.record("SetLockedHint", path=self.path, interface=SESSION, locked=bool(locked))
        self.set_locked(bool(locked))

    @dbus.service.method(SESSION, in_signature="b", out_signature="")
    def SetIdleHint(self, idle):
        self.record("SetIdleHint", path=self.path, idle=bool(idle))
        if self.state.idle != bool(idle):
            self.state.idle = bool(idle)
            self.changed("IdleHint")

    def set_locked(self, locked):
        if self.state.locked != locked:
            self.state.locked = locked
            self.changed("LockedHint")


class Manager(dbus.service.Object):
    def __init__(self, connection, session, record):
        super().__init__(connection, MANAGER_PATH)
        self.session = session
        self.record = record

    def _path(self, identifier):
        if identifier in (SESSION_ID, "auto", "self"):
            return dbus.ObjectPath(SESSION_PATH)
        raise dbus.DBusException(
            f"session_id: no session '{identifier}' known", name="org.freedesktop.login1.NoSuchSession"
        )

    @dbus.service.method(MANAGER, in_signature="s", out_signature="o")
    def GetSession(self, identifier):
        self.record("GetSession", session_id=str(identifier))
        return self._path(identifier)

    @dbus.service.method(MANAGER, in_signature="u", out_signature="o")
    def GetSessionByPID(self, pid):
        self.record("GetSessionByPID", pid=int(pid))
        return dbus.ObjectPath(SESSION_PATH)

    @dbus.service.method(MANAGER, in_signature="", out_signature="a(susso)")
    def ListSessions(self):
        self.record("ListSessions")
        state = self.session.state
        return dbus.Array(
            [(SESSION_ID, dbus.UInt32(state.uid), state.user, "seat0", dbus.ObjectPath(SESSION_PATH))],
            signature="(susso)",
        )

    @dbus.service.method(MANAGER, in_signature="s", out_signature="")
    def LockSession(self, identifier):
        self.record("LockSession", session_id=str(identifier))
        self._path(identifier)
        self.session.Lock()

    @dbus.service.method(MANAGER, in_signature="s", out_signature="")
    def UnlockSession(self, identifier):
        self.record("UnlockSession", session_id=str(identifier))
        self._path(identifier)
        self.session.Unlock()

    @dbus.service.method(MANAGER, in_signature="", out_signature="")
    def LockSessions(self):
        self.record("LockSessions")
        self.session.Lock()

    @dbus.service.method(MANAGER, in_signature="", out_signature="")
    def UnlockSessions(self):
        self.record("UnlockSessions")
        self.session.Unlock()


def main():
    def extra(parser):
        parser.add_argument("--uid", type=int, default=os.getuid(), help="the session's user id")
        parser.add_argument("--user", help="the session's user name (default: the uid's)")

    options = peer.arguments("A stand-in for systemd-logind with one session.", extra)
    user = options.user
    if user is None:
        try:
            user = pwd.getpwuid(options.uid).pw_name
        except KeyError:
            user = f"user{options.uid}"
    record = peer.Recorder(options.record)
    connection = peer.connect(options.address)
    state = SessionState(options.uid, user)
    session = Session(connection, SESSION_PATH, state, record)
    aliases = [Session(connection, path, state, record, real=session) for path in (AUTO_PATH, SELF_PATH)]
    manager = Manager(connection, session, record)
    name = peer.own(connection, NAME)
    peer.run(connection)


if __name__ == "__main__":
    main()
