package import BackgrounderCore
import CSDBus

#if canImport(Glibc)
    import Glibc
#endif

/// A failure of the D-Bus binding, or an error reply from a peer, with its D-Bus error name
/// when there is one.
package struct DBusError: Error, CustomStringConvertible {
    /// The D-Bus error name (`org.freedesktop.DBus.Error.ServiceUnknown`), if a peer sent one.
    package var name: String?
    package var message: String
    /// The negative errno sd-bus returned, if it was sd-bus's own failure.
    package var code: Int32?

    package init(name: String? = nil, _ message: String) {
        self.name = name
        self.message = message
    }

    /// What a negative sd-bus return means: `doing: strerror`.
    package init(_ doing: String, code: Int32) {
        self.init("\(doing): \(String(cString: strerror(-code)))")
        self.code = code
    }

    package var description: String { name.map { "\(message) (\($0))" } ?? message }
}

/// Throws when an sd-bus call returned a negative errno.
@discardableResult
package func checked(_ result: Int32, _ doing: @autoclosure () -> String) throws(DBusError) -> Int32 {
    guard result >= 0 else { throw DBusError(doing(), code: result) }
    return result
}

/// One sd-bus message, referenced for as long as this lives. Used only on the bus thread.
package final class DBusMessage {
    package let pointer: OpaquePointer

    /// Takes over a reference the caller owns (a message sd-bus created for us).
    package init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to a message sd-bus lends to a callback.
    package init(borrowing pointer: OpaquePointer) {
        self.pointer = sd_bus_message_ref(pointer)
    }

    deinit {
        sd_bus_message_unref(pointer)
    }

    package var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }
    package var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }
    package var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }
    package var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }

    /// The error a reply carries, if it is an error reply.
    package var error: DBusError? {
        guard let error = sd_bus_message_get_error(pointer), error.pointee.name != nil else { return nil }
        return DBusError(
            name: error.pointee.name.map { String(cString: $0) },
            error.pointee.message.map { String(cString: $0) } ?? "no message")
    }

    // MARK: Writing

    /// Appends values in order.
    package func append(_ values: [DBusValue]) throws(DBusError) {
        for value in values { try append(value) }
    }

    /// Appends one value.
    package func append(_ value: DBusValue) throws(DBusError) {
        let result: Int32
        switch value {
        case .byte(var byte): result = sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "y")), &byte)
        case .boolean(let flag):
            var int: Int32 = flag ? 1 : 0
            result = sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "b")), &int)
        case .int16(var number): result = sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "n")), &number)
        case .uint16(var number): result = sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "q")), &number)
        case .int32(var number): result = sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "i")), &number)
        case .uint32(var number): result = sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "u")), &number)
        case .int64(var number): result = sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "x")), &number)
        case .uint64(var number): result = sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "t")), &number)
        case .double(var number): result = sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "d")), &number)
        case .string(let text), .objectPath(let text), .signature(let text):
            let type = value.signature.utf8.first!
            // D-Bus strings cannot hold NUL; an app's title with one is cut there, not refused.
            let clean =
                text.split(separator: "\0", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            result = clean.withCString { sd_bus_message_append_basic(pointer, CChar(type), $0) }
        case .array(let element, let elements):
            try container("a", element) { () throws(DBusError) in try append(elements) }
            return
        case .dictionary(let key, let valueType, let entries):
            try container("a", "{" + key + valueType + "}") { () throws(DBusError) in
                for entry in entries {
                    try container("e", key + valueType) { () throws(DBusError) in
                        try append(entry.key)
                        try append(entry.value)
                    }
                }
            }
            return
        case .variant(let inner):
            try container("v", inner.signature) { () throws(DBusError) in try append(inner) }
            return
        case .structure(let fields):
            try container("r", fields.map(\.signature).joined()) { () throws(DBusError) in try append(fields) }
            return
        }
        try checked(result, "cannot append a \(value.signature) value")
    }

    private func container(_ type: Character, _ contents: String, _ body: () throws(DBusError) -> Void)
        throws(DBusError)
    {
        let code = CChar(type.asciiValue!)
        try checked(sd_bus_message_open_container(pointer, code, contents), "cannot open a \(type) container")
        try body()
        try checked(sd_bus_message_close_container(pointer), "cannot close a \(type) container")
    }

    // MARK: Reading

    /// Reads every remaining value of the message's body.
    package func readAll() throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try readNext() { values.append(value) }
        return values
    }

    /// Reads the next value of the current container, or `nil` at its end.
    private func readNext() throws(DBusError) -> DBusValue? {
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>?
        let peeked = try checked(sd_bus_message_peek_type(pointer, &type, &contentsPointer), "cannot read the message")
        guard peeked > 0 else { return nil }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "a"):
            return try readArray(contents)
        case UInt8(ascii: "v"):
            return .variant(
                try inside("v", contents) { () throws(DBusError) in
                    guard let inner = try readNext() else { throw DBusError("an empty variant") }
                    return inner
                })
        case UInt8(ascii: "r"):
            return .structure(try inside("r", contents) { () throws(DBusError) in try readAll() })
        default:
            return try readBasic(type)
        }
    }

    private func readArray(_ element: String) throws(DBusError) -> DBusValue {
        if element.hasPrefix("{") {
            let inner = String(element.dropFirst().dropLast())
            let key = String(inner.prefix(1))
            let value = String(inner.dropFirst())
            let entries = try inside("a", element) { () throws(DBusError) in
                var entries: [DBusValue.DictionaryEntry] = []
                while try checked(sd_bus_message_at_end(pointer, 0), "cannot read the message") == 0 {
                    let entry = try inside("e", inner) { () throws(DBusError) in
                        guard let key = try readNext(), let value = try readNext() else {
                            throw DBusError("a dictionary entry without a key or value")
                        }
                        return DBusValue.DictionaryEntry(key, value)
                    }
                    entries.append(entry)
                }
                return entries
            }
            return .dictionary(key: key, value: value, entries)
        }
        return .array(element: element, try inside("a", element) { () throws(DBusError) in try readAll() })
    }

    private func inside<T>(_ type: Character, _ contents: String, _ body: () throws(DBusError) -> T)
        throws(DBusError) -> T
    {
        try checked(
            sd_bus_message_enter_container(pointer, CChar(type.asciiValue!), contents),
            "cannot enter a \(type) container")
        let value = try body()
        try checked(sd_bus_message_exit_container(pointer), "cannot leave a \(type) container")
        return value
    }

    private func readBasic(_ type: CChar) throws(DBusError) -> DBusValue {
        func read<T: BitwiseCopyable>(_ initial: T) throws(DBusError) -> T {
            var value = initial
            try checked(sd_bus_message_read_basic(pointer, type, &value), "cannot read a value")
            return value
        }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try read(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try read(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try read(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try read(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try read(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try read(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try read(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try read(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try read(Double(0)))
        case UInt8(ascii: "h"): return .uint32(UInt32(bitPattern: try read(Int32(0))))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let text = try read(UnsafePointer<CChar>?.none).map { String(cString: $0) } ?? ""
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "o"): return .objectPath(text)
            case UInt8(ascii: "g"): return .signature(text)
            default: return .string(text)
            }
        default:
            throw DBusError("an unknown D-Bus type '\(Character(Unicode.Scalar(UInt8(bitPattern: type))))'")
        }
    }
}
