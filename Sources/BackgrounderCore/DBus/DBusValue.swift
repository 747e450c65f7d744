/// A value in D-Bus's type system, as read from or written to a message.
///
/// Containers carry their element signatures so that an empty array or dictionary still
/// has a type on the wire.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An array whose elements all have the signature `element`.
    case array(element: String, [DBusValue])
    /// A dictionary (`a{KV}`): keys of a basic type, values of signature `value`.
    case dictionary(key: String, value: String, [DictionaryEntry])
    /// A value of any type, tagged with its signature.
    case variant(DBusValue)
    /// A struct.
    case structure([DBusValue])

    /// One entry of a ``dictionary(key:value:_:)``.
    public struct DictionaryEntry: Sendable, Hashable {
        public var key: DBusValue
        public var value: DBusValue

        /// Creates an entry.
        public init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value's D-Bus type signature (`s`, `a{sv}`, `(ii)`...).
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// An `as`.
    public static func strings(_ values: [String]) -> DBusValue {
        .array(element: "s", values.map(DBusValue.string))
    }

    /// An `a{sv}`, the shape of property maps, hints and metadata, in key order.
    public static func vardict(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: "s", value: "v",
            entries.sorted { $0.key < $1.key }.map { DictionaryEntry(.string($0.key), .variant($0.value)) })
    }
}

extension DBusValue {
    /// The string of a `s`, `o` or `g`, looking through a variant.
    public var stringValue: String? {
        switch self {
        case .string(let value), .objectPath(let value), .signature(let value): value
        case .variant(let inner): inner.stringValue
        default: nil
        }
    }

    /// The number of an integer type, looking through a variant.
    public var integerValue: Int64? {
        switch self {
        case .byte(let value): Int64(value)
        case .int16(let value): Int64(value)
        case .uint16(let value): Int64(value)
        case .int32(let value): Int64(value)
        case .uint32(let value): Int64(value)
        case .int64(let value): value
        case .uint64(let value): Int64(exactly: value)
        case .variant(let inner): inner.integerValue
        default: nil
        }
    }

    /// The value of a `b`, looking through a variant.
    public var booleanValue: Bool? {
        switch self {
        case .boolean(let value): value
        case .variant(let inner): inner.booleanValue
        default: nil
        }
    }

    /// The bytes of an `ay`, looking through a variant.
    public var bytesValue: [UInt8]? {
        switch self {
        case .array("y", let elements):
            elements.compactMap { if case .byte(let byte) = $0 { byte } else { nil } }
        case .variant(let inner): inner.bytesValue
        default: nil
        }
    }

    /// The entries of an `a{s?}` by key, looking through a variant.
    public var dictionaryValue: [String: DBusValue]? {
        switch self {
        case .dictionary(_, _, let entries):
            Dictionary(
                entries.compactMap { entry in entry.key.stringValue.map { ($0, entry.value) } },
                uniquingKeysWith: { first, _ in first })
        case .variant(let inner): inner.dictionaryValue
        default: nil
        }
    }
}
