/// One class of message on the wire: the name in its `class` field and the `Body` case it
/// stands for, made from that case's constructor (`MessageClass("OPEN", Body.quit)`).
///
/// The payload's fields sit beside `class` and `id` in the same JSON object, so the payload
/// is read from and written to the message's own decoder and encoder.
struct MessageClass<Body: Hashable & Sendable>: Sendable {
    /// The wire name, such as `BEGIN_TASK`.
    let name: String
    /// Reads the payload's fields and builds the body.
    let decode: @Sendable (any Decoder) throws -> Body
    /// The payload's type; `nil` for a class without one.
    fileprivate let payloadType: ObjectIdentifier?
    /// The body of a class without a payload.
    fileprivate let unitBody: Body?
    /// Builds this class's body from a payload of its type, or `nil` for another type.
    fileprivate let rebuild: @Sendable (Any) -> Body?
    /// The payload as something to encode, or `nil` when it is not of this class's type.
    fileprivate let encodable: @Sendable (Any) -> (any Encodable)?

    /// A class whose payload is a `Payload` (`Body.open` is `(AppReference) -> Body`).
    init<Payload: Codable & Sendable>(_ name: String, _ make: @escaping @Sendable (Payload) -> Body) {
        self.name = name
        decode = { make(try Payload(from: $0)) }
        payloadType = ObjectIdentifier(Payload.self)
        unitBody = nil
        rebuild = { ($0 as? Payload).map(make) }
        encodable = { $0 as? Payload }
    }

    /// A class without a payload (`Body.status`).
    init(_ name: String, _ body: Body) {
        self.name = name
        decode = { _ in body }
        payloadType = nil
        unitBody = body
        rebuild = { _ in nil }
        encodable = { _ in nil }
    }
}

/// Every class of one direction, in the order people read them in errors: the one list a
/// message's coding derives from, so a new message is a `Body` case and one line.
///
/// Decoding looks the `class` up by name. Encoding has to go from a `Body` value back to its
/// class without a switch that spells every case again, so it asks `Mirror` for the case's
/// payload and finds the class by the payload's type; where two classes share a payload type
/// (`OPEN` and `QUIT` both carry an `AppReference`) it takes the one whose constructor
/// rebuilds the same body. A class without a payload is found by the body itself.
///
/// The price is one `Mirror` per message encoded, about 2 µs in an optimized build, against
/// 8 µs to encode a small request to JSON with the switch this replaced; decoding is a
/// dictionary look-up, no slower than that switch. `Mirror` needs the reflection metadata
/// Swift emits by default.
struct MessageClasses<Body: Hashable & Sendable>: Sendable {
    /// The classes in list order.
    let all: [MessageClass<Body>]
    private let byName: [String: MessageClass<Body>]
    private let byUnitBody: [Body: MessageClass<Body>]
    private let byPayloadType: [ObjectIdentifier: [MessageClass<Body>]]

    /// Indexes the list.
    ///
    /// A repeated name keeps its first class rather than trapping, so the test that lists no
    /// name twice can report it instead of the process dying while the list is built.
    init(_ all: [MessageClass<Body>]) {
        self.all = all
        byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        byUnitBody = Dictionary(
            all.compactMap { entry in entry.unitBody.map { ($0, entry) } },
            uniquingKeysWith: { first, _ in first }
        )
        byPayloadType = Dictionary(grouping: all.filter { $0.payloadType != nil }, by: { $0.payloadType! })
    }

    /// The wire names, in list order.
    var names: [String] { all.map(\.name) }

    /// The class with this wire name, if there is one.
    func named(_ name: String) -> MessageClass<Body>? {
        byName[name]
    }

    /// The wire name of a body's class and its payload, if it has one; `nil` for a `Body`
    /// case with no line in the list (a programming error, which encoding reports as an
    /// error naming the case, found by the first test that sends it).
    func parts(of body: Body) -> (name: String, payload: (any Encodable)?)? {
        guard let payload = Mirror(reflecting: body).children.first?.value else {
            guard let unit = byUnitBody[body] else { return nil }
            return (unit.name, nil)
        }
        let candidates = byPayloadType[ObjectIdentifier(type(of: payload))] ?? []
        // A payload type of its own is the common case; proving that its class rebuilds the
        // body would compare the whole payload on every message, so only debug builds do.
        let match = candidates.count == 1 ? candidates[0] : candidates.first { $0.rebuild(payload) == body }
        guard let match, let encodable = match.encodable(payload) else { return nil }
        assert(match.rebuild(payload) == body, "\(body) is listed as \(match.name), whose case has its payload type")
        return (match.name, encodable)
    }
}

/// The fields of every message besides its payload's.
enum MessageHeaderKeys: String, CodingKey {
    case `class`, id
}

extension MessageClasses {
    /// Writes a message as one object: `class`, `id` when there is one, and the payload's
    /// fields beside them.
    func encode(_ body: Body, id: MessageID?, to encoder: any Encoder) throws {
        guard let (name, payload) = parts(of: body) else {
            throw EncodingError.invalidValue(
                body,
                EncodingError.Context(
                    codingPath: [], debugDescription: "\(Body.self).\(body) has no line in its list of message classes")
            )
        }
        var header = encoder.container(keyedBy: MessageHeaderKeys.self)
        try header.encode(name, forKey: .class)
        try header.encodeIfPresent(id, forKey: .id)
        try payload?.encode(to: encoder)
    }
}
