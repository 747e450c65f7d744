#!/usr/bin/python3
"""A stand-in for a systemd service manager with one unit, for tests: owns
org.freedesktop.systemd1 (on a private bus that plays the session bus of a user manager) and
records every call it receives.

    systemd_manager.py --address unix:path=/tmp/x/bus --record /tmp/x/systemd.jsonl --job-type restart

Manager /org/freedesktop/systemd1 (org.freedesktop.systemd1.Manager):
    GetUnitByPID(u) -> o      every pid is in the one unit, backgrounderd.service
Unit /org/freedesktop/systemd1/unit/backgrounderd_2eservice (org.freedesktop.systemd1.Unit):
    property Job (uo): (7, /org/freedesktop/systemd1/job/7), or (0, /) with no job
Job /org/freedesktop/systemd1/job/7 (org.freedesktop.systemd1.Job):
    properties Id (u), JobType (s), State (s)
Test control (org.backgrounder.Test1) on the manager: SetJobType(s), "" for no job.

Records (key "event"): {"event": "GetUnitByPID", "pid": 42},
{"event": "Get", "path": ..., "interface": ..., "property": "JobType"}
"""

import dbus
import dbus.service

import peer

NAME = "org.freedesktop.systemd1"
MANAGER_PATH = "/org/freedesktop/systemd1"
MANAGER = "org.freedesktop.systemd1.Manager"
UNIT = "org.freedesktop.systemd1.Unit"
JOB = "org.freedesktop.systemd1.Job"
# systemd escapes unit names into object paths as sd_bus_path_encode does: "." -> "_2e".
UNIT_PATH = "/org/freedesktop/systemd1/unit/backgrounderd_2eservice"
JOB_ID = 7
JOB_PATH = f"/org/freedesktop/systemd1/job/{JOB_ID}"


class State:
    def __init__(self, job_type):
        self.job_type = job_type


class PropertiesObject(dbus.service.Object):
    """An object with read-only properties of one interface."""

    def __init__(self, connection, path, interface, properties, record):
        super().__init__(connection, path)
        self.path = path
        self.interface = interface
        self.properties = properties
        self.record = record

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        self.record("Get", path=self.path, interface=str(interface), property=str(name))
        properties = self._properties(interface)
        if name not in properties:
            raise dbus.DBusException(
                f"{self.interface} has no property {name}", name="org.freedesktop.DBus.Error.UnknownProperty"
            )
        return properties[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        self.record("GetAll", path=self.path, interface=str(interface))
        return dbus.Dictionary(self._properties(interface), signature="sv")

    def _properties(self, interface):
        if interface not in (self.interface, ""):
            raise dbus.DBusException(
                f"this object has no interface {interface}", name="org.freedesktop.DBus.Error.UnknownInterface"
            )
        return self.properties()


class Manager(dbus.service.Object):
    def __init__(self, connection, state, record):
        super().__init__(connection, MANAGER_PATH)
        self.state = state
        self.record = record

    @dbus.service.method(MANAGER, in_signature="u", out_signature="o")
    def GetUnitByPID(self, pid):
        self.record("GetUnitByPID", pid=int(pid))
        return dbus.ObjectPath(UNIT_PATH)

    @dbus.service.method(peer.TEST_INTERFACE, in_signature="s", out_signature="")
    def SetJobType(self, job_type):
        self.record("SetJobType", job_type=str(job_type))
        self.state.job_type = str(job_type)


def main():
    def extra(parser):
        parser.add_argument("--job-type", default="", help="the unit's job: restart, stop, or none")

    options = peer.arguments("A stand-in for a systemd service manager with one unit.", extra)
    record = peer.Recorder(options.record)
    connection = peer.connect(options.address)
    state = State(options.job_type)

    def unit_properties():
        job = (JOB_ID, JOB_PATH) if state.job_type else (0, "/")
        return {
            "Id": dbus.String("backgrounderd.service"),
            "ActiveState": dbus.String("deactivating" if state.job_type else "active"),
            "Job": dbus.Struct((dbus.UInt32(job[0]), dbus.ObjectPath(job[1])), signature="uo"),
        }

    def job_properties():
        if not state.job_type:
            raise dbus.DBusException(f"no job {JOB_ID}", name="org.freedesktop.DBus.Error.UnknownObject")
        return {
            "Id": dbus.UInt32(JOB_ID),
            "JobType": dbus.String(state.job_type),
            "State": dbus.String("running"),
        }

    manager = Manager(connection, state, record)
    unit = PropertiesObject(connection, UNIT_PATH, UNIT, unit_properties, record)
    job = PropertiesObject(connection, JOB_PATH, JOB, job_properties, record)
    name = peer.own(connection, NAME)
    peer.run(connection)


if __name__ == "__main__":
    main()
