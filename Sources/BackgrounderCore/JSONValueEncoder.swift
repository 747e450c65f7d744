import Foundation

/// Encodes any `Encodable` as a ``JSONValue`` in which an absent optional is `null`, not a
/// missing key. `JSONEncoder` leaves such keys out, so a script cannot tell "no value" from
/// "no such field"; `bgctl --json` promises every documented field, present or `null`.
///
/// Dates encode as `JSONEncoder`'s default does (seconds since 2001), URLs as strings.
public struct JSONValueEncoder {
    /// Creates an encoder.
    public init() {}

    /// The value as JSON, absent optionals included as `null`.
    public func encode(_ value: some Encodable) throws -> JSONValue {
        let node = JSONNode()
        try node.encode(value, codingPath: [])
        return node.value
    }
}

/// One value under construction: containers hand out children that are filled in later, so
/// each is a reference.
private final class JSONNode {
    enum Content {
        case unset
        case leaf(JSONValue)
        case object([String: JSONNode])
        case array([JSONNode])
    }

    var content = Content.unset

    var value: JSONValue {
        switch content {
        case .unset: .object([:])
        case .leaf(let value): value
        case .object(let children): .object(children.mapValues(\.value))
        case .array(let children): .array(children.map(\.value))
        }
    }

    func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
        if let url = value as? URL {
            content = .leaf(.string(url.absoluteString))
        } else {
            try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }

    func child(_ key: String) -> JSONNode {
        var children: [String: JSONNode] = [:]
        if case .object(let existing) = content { children = existing }
        let node = children[key] ?? JSONNode()
        children[key] = node
        content = .object(children)
        return node
    }

    func appended() -> JSONNode {
        var children: [JSONNode] = []
        if case .array(let existing) = content { children = existing }
        let node = JSONNode()
        children.append(node)
        content = .array(children)
        return node
    }

    var count: Int {
        if case .array(let children) = content { return children.count }
        return 0
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String { "\(intValue ?? 0)" }
    var intValue: Int?
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct NodeEncoder: Encoder {
    let node: JSONNode
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([:]) }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    var codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.child(key.stringValue).content = .leaf(.null) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        try node.child(key.stringValue).encode(value, codingPath: codingPath + [key])
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.child("super"), codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.child(key.stringValue), codingPath: codingPath + [key])
    }

    // The point of this encoder: an absent optional is written as null. Every overload is
    // needed, because synthesized conformances call the one for the property's own type.
    private mutating func optional(_ value: (some Encodable)?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try optional(value, key) }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: JSONNode
    var codingPath: [any CodingKey]
    var count: Int { node.count }

    mutating func encodeNil() throws { node.appended().content = .leaf(.null) }
    mutating func encode(_ value: some Encodable) throws {
        let path = codingPath + [IndexKey(count)]
        try node.appended().encode(value, codingPath: path)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let path = codingPath + [IndexKey(count)]
        return NodeEncoder(node: node.appended(), codingPath: path).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [IndexKey(count)]
        return NodeEncoder(node: node.appended(), codingPath: path).unkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder {
        NodeEncoder(node: node.appended(), codingPath: codingPath + [IndexKey(count)])
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: JSONNode
    var codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .leaf(.null) }
    mutating func encode(_ value: Bool) throws { node.content = .leaf(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .leaf(.string(value)) }
    mutating func encode(_ value: Double) throws { node.content = .leaf(.number(value)) }
    mutating func encode(_ value: Float) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: Int) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: Int8) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: Int16) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: Int32) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: Int64) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: UInt) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: UInt8) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: UInt16) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: UInt32) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: UInt64) throws { node.content = .leaf(.number(Double(value))) }
    mutating func encode(_ value: some Encodable) throws { try node.encode(value, codingPath: codingPath) }
}
