import BackgrounderCore
import BackgrounderProtocol
import Foundation

/// The process's background sessions by identifier, the transfers already delivered (a
/// finished transfer is delivered once per process, however often the daemon lists it), and
/// the background events waiting for `urlSessionDidFinishEvents`.
@MainActor
final class URLSessionRegistry {
    static let shared = URLSessionRegistry()

    /// A test's fake daemon, instead of the app's connection.
    var channelOverride: (any TransferChannel)?
    /// Where new sessions send their requests.
    var channel: (any TransferChannel)? { channelOverride ?? Application.shared.daemonConnection }

    private var sessions: [String: URLSession] = [:]
    private var delivered: Set<Int> = []
    private var pendingEvents: Set<String> = []

    /// Makes `session` the one that hears its identifier's updates. A second session with
    /// the same identifier replaces the first, which hears nothing more.
    func register(_ session: URLSession) {
        if let old = sessions[session.identifier], old !== session {
            FileHandle.standardError.write(
                Data("BackgroundKit: URLSession: a second session \(session.identifier) replaces the first\n".utf8))
        }
        sessions[session.identifier] = session
    }

    /// The app reconnected to a restarted daemon: every live session asks for its transfers
    /// again, so nothing that finished meanwhile goes unheard.
    func reattachAll() {
        for session in sessions.values { session.attach() }
    }

    /// Forgets an invalidated session.
    func unregister(_ session: URLSession) {
        if sessions[session.identifier] === session { sessions[session.identifier] = nil }
    }

    /// The live session with an identifier.
    func session(_ identifier: String) -> URLSession? { sessions[identifier] }

    /// A `TRANSFER_UPDATE` notice.
    func receive(_ info: TransferInfo) {
        sessions[info.request.session]?.receive(info)
    }

    func wasDelivered(_ transfer: Int) -> Bool { delivered.contains(transfer) }
    func markDelivered(_ transfer: Int) { delivered.insert(transfer) }

    /// A background event for the session arrived: the next list delivered ends with
    /// `urlSessionDidFinishEvents`.
    func noteEvent(for identifier: String) { pendingEvents.insert(identifier) }
    func isEventPending(for identifier: String) -> Bool { pendingEvents.contains(identifier) }
    /// Whether an event was pending, which it no longer is.
    func consumeEvent(for identifier: String) -> Bool { pendingEvents.remove(identifier) != nil }

    /// Forgets everything, between tests.
    func reset() {
        sessions = [:]
        delivered = []
        pendingEvents = []
        channelOverride = nil
    }
}
