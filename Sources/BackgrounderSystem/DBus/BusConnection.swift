package import BackgrounderCore
import CSDBus

#if canImport(Glibc)
    package import Glibc
#endif

/// Which message bus: the person's session bus (MPRIS, notifications, UnifiedPush) or the
/// system bus (logind).
package enum BusKind: String, Sendable {
    case session, system

    /// The variable that names the bus's address.
    package var addressVariable: String {
        switch self {
        case .session: "DBUS_SESSION_BUS_ADDRESS"
        case .system: "DBUS_SYSTEM_BUS_ADDRESS"
        }
    }

    /// Whether the environment turns this bus off: the variable set, but empty.
    package static func isDisabled(_ kind: BusKind, environment: [String: String]) -> Bool {
        environment[kind.addressVariable]?.isEmpty == true
    }
}

/// One sd-bus connection. sd-bus objects are not thread-safe: this lives and is used on the
/// ``DesktopBus`` thread only.
///
/// Callbacks (objects, matches, replies) are Swift closures kept in boxes whose address is
/// sd-bus's `userdata`; the boxes live as long as their slots.
package final class BusConnection {
    package let kind: BusKind
    private let bus: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var handlers: [MessageHandler] = []
    private var pendingReplies: [ObjectIdentifier: PendingReply] = [:]

    /// Connects to the bus the environment names (`DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`; `DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`).
    /// - Parameters:
    ///   - kind: Session or system.
    ///   - description: How sd-bus names the connection in its logs.
    /// - Throws: ``DBusError`` with the reason it could not connect.
    package init(kind: BusKind, description: String) throws(DBusError) {
        var bus: OpaquePointer?
        let opened =
            switch kind {
            case .session: sd_bus_open_user_with_description(&bus, description)
            case .system: sd_bus_open_system_with_description(&bus, description)
            }
        guard opened >= 0, let bus else {
            if kind == .session, getenv(kind.addressVariable) == nil, getenv("XDG_RUNTIME_DIR") == nil {
                throw DBusError("no session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set")
            }
            throw DBusError("cannot connect to the \(kind.rawValue) bus", code: opened)
        }
        self.kind = kind
        self.bus = bus
    }

    deinit {
        close()
        sd_bus_flush_close_unref(bus)
    }

    /// Fails every call still waiting for a reply and drops every object and match.
    package func close() {
        let pending = pendingReplies.values
        pendingReplies = [:]
        for reply in pending { reply.complete(.failure(DBusError("the \(kind.rawValue) bus connection closed"))) }
        for slot in slots { sd_bus_slot_unref(slot) }
        slots = []
        handlers = []
    }

    // MARK: Driving it

    /// Handles everything that has arrived, without blocking.
    /// - Throws: ``DBusError`` when the connection is gone.
    package func process() throws(DBusError) {
        while try checked(sd_bus_process(bus, nil), "the \(kind.rawValue) bus connection failed") > 0 {}
    }

    /// What to `poll(2)` for.
    package var pollDescriptor: pollfd {
        let events = sd_bus_get_events(bus)
        return pollfd(fd: sd_bus_get_fd(bus), events: Int16(max(events, 0)), revents: 0)
    }

    /// When sd-bus next needs ``process()`` (a call's timeout), on `CLOCK_MONOTONIC`, in µs.
    package var deadline: UInt64? {
        var usec: UInt64 = 0
        guard sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt64.max else { return nil }
        return usec
    }

    // MARK: Names, objects, matches

    /// Takes a well-known name; fails when someone else has it.
    package func requestName(_ name: String) throws(DBusError) {
        try checked(sd_bus_request_name(bus, name, 0), "cannot take the name \(name)")
    }

    /// Gives a well-known name up.
    package func releaseName(_ name: String) {
        _ = sd_bus_release_name(bus, name)
    }

    /// Serves method calls to `path` (and its interfaces) with `handler`, which replies to
    /// them (``reply(to:_:)``) and returns whether it did.
    package func addObject(_ path: String, handler: @escaping (DBusMessage, BusConnection) -> Bool) throws(DBusError) {
        let box = MessageHandler { [unowned self] in handler(DBusMessage(borrowing: $0), self) ? 1 : 0 }
        var slot: OpaquePointer?
        try checked(
            sd_bus_add_object(bus, &slot, path, messageTrampoline, Unmanaged.passUnretained(box).toOpaque()),
            "cannot serve \(path)")
        keep(slot, box)
    }

    /// Calls `handler` with every message matching `rule` (a D-Bus match rule).
    package func addMatch(_ rule: String, handler: @escaping (DBusMessage, BusConnection) -> Void) throws(DBusError) {
        let box = MessageHandler { [unowned self] in
            handler(DBusMessage(borrowing: $0), self)
            return 0
        }
        var slot: OpaquePointer?
        try checked(
            sd_bus_add_match(bus, &slot, rule, messageTrampoline, Unmanaged.passUnretained(box).toOpaque()),
            "cannot watch \(rule)")
        keep(slot, box)
    }

    private func keep(_ slot: OpaquePointer?, _ box: MessageHandler) {
        if let slot { slots.append(slot) }
        handlers.append(box)
    }

    // MARK: Sending

    /// Sends a method call; `completion` gets the reply's values or its error, on this
    /// thread, once.
    package func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(5), completion: @escaping (Result<[DBusValue], DBusError>) -> Void
    ) {
        do throws(DBusError) {
            let message = try methodCall(destination, path, interface, member, arguments)
            let pending = PendingReply(completion)
            let key = ObjectIdentifier(pending)
            pending.handler = MessageHandler { [weak self] reply in
                self?.pendingReplies[key] = nil
                let reply = DBusMessage(borrowing: reply)
                if let error = reply.error {
                    pending.complete(.failure(error))
                } else {
                    pending.complete(Result { () throws(DBusError) in try reply.readAll() })
                }
                return 1
            }
            var slot: OpaquePointer?
            try checked(
                sd_bus_call_async(
                    bus, &slot, message.pointer, messageTrampoline,
                    Unmanaged.passUnretained(pending.handler!).toOpaque(), UInt64(timeout.wholeMicroseconds)),
                "cannot call \(destination) \(interface).\(member)")
            pending.slot = slot
            pendingReplies[key] = pending
        } catch {
            completion(.failure(error))
        }
    }

    /// A method call with its arguments, ready to send.
    private func methodCall(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]
    ) throws(DBusError) -> DBusMessage {
        var pointer: OpaquePointer?
        try checked(
            sd_bus_message_new_method_call(bus, &pointer, destination, path, interface, member),
            "cannot call \(interface).\(member)")
        let message = DBusMessage(owning: pointer!)
        try message.append(arguments)
        return message
    }

    /// Sends a method call and waits for its reply: for a connection of its own, used once
    /// off the bus thread (the daemon's last question to systemd as it stops).
    /// - Returns: The reply's values.
    /// - Throws: ``DBusError``: the call's error reply, a timeout, or a lost connection.
    package func callAndWait(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration
    ) throws(DBusError) -> [DBusValue] {
        let message = try methodCall(destination, path, interface, member, arguments)
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var replyPointer: OpaquePointer?
        let called = sd_bus_call(bus, message.pointer, UInt64(timeout.wholeMicroseconds), &error, &replyPointer)
        guard called >= 0, let replyPointer else {
            let name = error.name.map { String(cString: $0) } ?? "error"
            let text = error.message.map { String(cString: $0) } ?? String(cString: strerror(-called))
            throw DBusError("\(destination) \(interface).\(member): \(name): \(text)")
        }
        return try DBusMessage(owning: replyPointer).readAll()
    }

    /// Emits a signal from `path`.
    package func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) throws(DBusError)
    {
        var pointer: OpaquePointer?
        try checked(
            sd_bus_message_new_signal(bus, &pointer, path, interface, member), "cannot emit \(interface).\(member)")
        let message = DBusMessage(owning: pointer!)
        try message.append(arguments)
        try checked(sd_bus_send(bus, message.pointer, nil), "cannot send \(interface).\(member)")
    }

    /// Replies to a method call with `values`.
    package func reply(to call: DBusMessage, _ values: [DBusValue] = []) {
        var pointer: OpaquePointer?
        guard sd_bus_message_new_method_return(call.pointer, &pointer) >= 0, let pointer else { return }
        let reply = DBusMessage(owning: pointer)
        guard (try? reply.append(values)) != nil else { return }
        _ = sd_bus_send(bus, reply.pointer, nil)
    }

    /// Replies to a method call with an error.
    package func replyError(to call: DBusMessage, name: String, _ message: String) {
        var error = sd_bus_error()
        _ = sd_bus_error_set(&error, name, message)
        defer { sd_bus_error_free(&error) }
        var pointer: OpaquePointer?
        guard sd_bus_message_new_method_error(call.pointer, &pointer, &error) >= 0, let pointer else { return }
        let reply = DBusMessage(owning: pointer)
        _ = sd_bus_send(bus, reply.pointer, nil)
    }
}

/// A Swift closure sd-bus can call through ``messageTrampoline``.
private final class MessageHandler {
    let handle: (OpaquePointer) -> Int32
    init(_ handle: @escaping (OpaquePointer) -> Int32) { self.handle = handle }
}

/// A call waiting for its reply.
private final class PendingReply {
    private var completion: ((Result<[DBusValue], DBusError>) -> Void)?
    var handler: MessageHandler?
    var slot: OpaquePointer?

    init(_ completion: @escaping (Result<[DBusValue], DBusError>) -> Void) { self.completion = completion }

    func complete(_ result: Result<[DBusValue], DBusError>) {
        let completion = self.completion
        self.completion = nil
        if let slot { sd_bus_slot_unref(slot) }
        slot = nil
        handler = nil
        completion?(result)
    }
}

private let messageTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    guard let message, let userdata else { return 0 }
    return Unmanaged<MessageHandler>.fromOpaque(userdata).takeUnretainedValue().handle(message)
}
