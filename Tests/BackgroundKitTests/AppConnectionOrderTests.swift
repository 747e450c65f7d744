import BackgrounderCore
import BackgrounderProtocol
import Foundation
import Testing

@testable import BackgroundKit

#if canImport(Glibc)
    import Glibc
#endif

/// The order in which an app hears its daemon: a reply's in-order handler runs before any
/// notice sent after the reply, so a check-in's state cannot overwrite a transition the
/// daemon made after it (home pressed while an adopted app checks in again).
@Suite struct AppConnectionOrderTests {
    @Test("a reply's in-order handler runs before the notice that follows it in the same read")
    func replyHandlerPrecedesLaterNotices() throws {
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let daemonEnd = ends[1]
        defer { close(daemonEnd) }
        let heard = Locked<[String]>([])
        let noticed = DispatchSemaphore(value: 0)
        let connection = AppConnection(
            descriptor: ends[0],
            onNotice: { message in
                if case .lifecycle(let notice) = message.body { heard.withLock { $0.append("\(notice.event)") } }
                noticed.signal()
            },
            onClose: {})

        // The daemon's side: read the request, then answer it and send a transition in one
        // write, so the reader sees both lines at once.
        let codec = LineCodec()
        let answered = Thread {
            var buffer = LineBuffer()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = Glibc.read(daemonEnd, &chunk, chunk.count)
                guard count > 0 else { return }
                buffer.append(chunk[..<count])
                guard let line = try? buffer.nextLine(),
                    let request = try? codec.decode(ClientMessage.self, from: line)
                else { continue }
                let reply = DaemonMessage(
                    id: request.id, .checkedIn(CheckInReply(launchReason: .user, state: .active)))
                let notice = DaemonMessage(.lifecycle(LifecycleNotice(event: .didEnterBackground, state: .background)))
                guard let first = try? codec.encode(reply), let second = try? codec.encode(notice) else { return }
                let both = first + second
                _ = both.withUnsafeBytes { write(daemonEnd, $0.baseAddress, $0.count) }
                return
            }
        }
        answered.start()

        let reply = try connection.request(.checkIn(CheckIn(bundle: BundleID("org.example.ordered")))) { reply in
            if case .checkedIn(let checkedIn) = reply.body {
                heard.withLock { $0.append("checkedIn \(checkedIn.state)") }
            }
        }
        #expect(noticed.wait(timeout: .now() + 30) == .success, "the notice never came")
        guard case .checkedIn = reply.body else {
            Issue.record("reply: \(reply)")
            return
        }
        #expect(heard.withLock { $0 } == ["checkedIn active", "didEnterBackground"])
    }
}
