// Fuzz target `protocol`: bytes as they arrive on the control socket, cut into lines by
// `LineBuffer` and each line decoded by `LineCodec` both ways: as a `ClientMessage` (what the
// daemon reads from bgctl and apps) and as a `DaemonMessage` (what bgctl, BackgroundKit and
// the samples read from the daemon).
//
// A line that decodes must encode again to one line (a single trailing newline, no other)
// that decodes to an equal message: both message types are `Hashable`, so a lossy field, a
// class written under another name or a payload that cannot be written back is a failure.

import BackgrounderProtocol
import Foundation

/// The codec under test; made once, as the daemon and clients do.
let codec = LineCodec()

/// Reads are cut this small so lines also arrive split across appends.
let readSize = 7

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtocol(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    // A small cap, so that the fuzzer reaches `lineTooLong` too.
    var buffer = LineBuffer(maximumLineLength: 2048)
    var offset = 0
    while offset < bytes.count {
        let end = min(offset + readSize, bytes.count)
        buffer.append(bytes[offset..<end])
        offset = end
        while true {
            let line: [UInt8]?
            do {
                line = try buffer.nextLine()
            } catch {
                // The connection is closed on this error: nothing more is read.
                precondition(error.code == .lineTooLong, "LineBuffer threw \(error)")
                return 0
            }
            guard let line else { break }
            precondition(!line.contains(UInt8(ascii: "\n")), "a line holds a newline")
            roundTrip(ClientMessage.self, line)
            roundTrip(DaemonMessage.self, line)
        }
    }
    return 0
}

/// Decodes a line; when it is a message, checks that it writes back to a line that reads
/// back to the same message.
func roundTrip<Message: Codable & Equatable>(_ type: Message.Type, _ line: [UInt8]) {
    let message: Message
    do {
        message = try codec.decode(type, from: line)
    } catch {
        // Refused lines are answered with an ERROR naming the problem: build that text too.
        _ = ProtocolError(error.code, error.message).description
        return
    }
    let written: Data
    do {
        written = try codec.encode(message)
    } catch {
        fatalError("\(type) decoded from \(String(decoding: line, as: UTF8.self)) cannot be encoded: \(error)")
    }
    precondition(written.last == UInt8(ascii: "\n"), "an encoded message does not end in a newline")
    let body = written.dropLast()
    precondition(!body.contains(UInt8(ascii: "\n")), "an encoded message spans lines: \(written)")
    let again: Message
    do {
        again = try codec.decode(type, from: body)
    } catch {
        fatalError("\(type) written as \(String(decoding: body, as: UTF8.self)) does not decode: \(error)")
    }
    precondition(
        again == message,
        "\(type) changed on a round trip: \(String(decoding: line, as: UTF8.self)) became "
            + "\(String(decoding: body, as: UTF8.self))")
}
