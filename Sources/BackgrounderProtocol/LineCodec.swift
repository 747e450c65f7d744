public import Foundation

/// Encodes messages as single JSON lines and decodes lines into messages, turning every
/// decoding failure into a ``ProtocolError`` that names what was wrong.
public struct LineCodec: Sendable {
    // Made once: creating them per message was a measurable share of a round trip.
    private let encoder: JSONEncoder
    private let decoder = JSONDecoder()

    /// Creates a codec.
    public init() {
        encoder = JSONEncoder()
        // Sorted keys keep lines stable for people reading logs and tests diffing them.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// Encodes a message as one line, newline included.
    /// - Parameter message: The message.
    /// - Returns: UTF-8 bytes ending in `\n`.
    /// - Throws: `EncodingError` when a value cannot be represented (for example NaN).
    public func encode(_ message: some Encodable) throws -> Data {
        var data = try encoder.encode(message)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Decodes one line (without its newline) into a message.
    /// - Parameters:
    ///   - type: The message type.
    ///   - line: The line's bytes.
    /// - Returns: The message.
    /// - Throws: ``ProtocolError`` saying whether the line was not JSON, lacked a class,
    ///   named an unknown class, or had a bad field.
    public func decode<Message: Decodable>(_ type: Message.Type, from line: some DataProtocol) throws(ProtocolError)
        -> Message
    {
        let data = Data(line)
        do {
            return try decoder.decode(type, from: data)
        } catch let error as ProtocolError {
            throw error
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            throw ProtocolError(.malformedJSON, "the line is not a JSON object")
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw ProtocolError(.malformedJSON, "the line is JSON but not an object")
        } catch let error as DecodingError {
            throw ProtocolError(.badRequest, Self.describe(error))
        } catch {
            throw ProtocolError(.malformedJSON, "the line could not be read: \(error)")
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int32.Type, is UInt32.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "missing field '\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)'"
        case .typeMismatch(let type, let context):
            return "field '\(path(context))' must be \(name(of: type))"
        case .valueNotFound(let type, let context):
            return "field '\(path(context))' must be \(name(of: type)), not null"
        case .dataCorrupted(let context):
            return "field '\(path(context))': \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
