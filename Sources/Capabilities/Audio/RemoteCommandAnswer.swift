package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// A person's `REMOTE_COMMAND` held until the app answers it (`REMOTE_COMMAND_STATUS`), the
/// wait runs out, or the app exits: the first of these is the reply.
///
/// The wait is a one-value stream rather than a continuation so that finishing twice (an
/// answer racing the timeout) is harmless and nothing can leak a continuation.
package final class RemoteCommandAnswer: Sendable {
    private let stream: AsyncStream<Result<Done, ProtocolError>>
    private let continuation: AsyncStream<Result<Done, ProtocolError>>.Continuation

    package init() {
        (stream, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(1))
    }

    /// Gives the reply; later calls change nothing.
    package func finish(_ result: Result<Done, ProtocolError>) {
        continuation.yield(result)
        continuation.finish()
    }

    /// Waits for the reply.
    package func value() async throws(ProtocolError) -> Done {
        for await result in stream { return try result.get() }
        throw ProtocolError(.failed, "the remote command was dropped without an answer")
    }
}

/// A command sent to an app whose answer a person waits for.
package struct AwaitedCommand: Sendable {
    /// The app it was sent to: only that app may answer it.
    package var bundle: BundleID
    package var command: RemoteCommand
    /// What the daemon did to deliver it (`sent`, `woke`, `launched`), for the reply.
    package var delivery: String
    package var answer: RemoteCommandAnswer
    /// When the wait ends unanswered, on the core's clock: ``AudioCapability/remoteCommandAnswerSeconds``
    /// after it was sent.
    package var due: Duration
}

extension AudioCapability {
    /// How long a person's remote command waits for the app's answer, launch or wake-up
    /// included: ten seconds, an app's check-in deadline.
    package static let remoteCommandAnswerSeconds = 10

    /// `REMOTE_COMMAND_STATUS` from an app: the answer to a command sent to it. Another app's
    /// ticket is `notFound`, like one that does not exist, so no app learns or settles
    /// another's commands.
    package func answer(_ identifier: BundleID, _ report: RemoteCommandStatusReport, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        guard let awaited = book.awaiting[report.ticket], awaited.bundle == identifier else {
            throw ProtocolError(.notFound, "no remote command \(report.ticket) waits for an answer from \(identifier)")
        }
        book.awaiting[report.ticket] = nil
        scheduleAnswerDeadline(in: apps)
        updateAssertion(identifier, in: apps)
        let command = awaited.command.rawValue
        apps.appLogger(identifier).info("answered the remote command \(command): \(report.status.rawValue)")
        awaited.answer.finish(
            .success(
                Done(
                    detail: "\(awaited.delivery); it answered \(report.status.rawValue)",
                    state: apps.state(of: identifier), handlerStatus: report.status,
                    handlerReason: report.reason.map {
                        String($0.prefix(RemoteCommandStatusReport.maximumReasonLength))
                    }
                )))
        return Done(detail: "answer to \(command) passed on")
    }

    /// The core's timer reached the soonest answer's deadline: every command whose wait ran
    /// out is answered for the app.
    package func deadlineReached(in apps: any AppCore) {
        let now = apps.now
        for (ticket, awaited) in book.awaiting.sorted(by: { $0.key < $1.key }) where awaited.due <= now {
            answerTimedOut(ticket, in: apps)
        }
        scheduleAnswerDeadline(in: apps)
    }

    /// Sets the core's timer for the soonest answer still awaited, or clears it.
    private func scheduleAnswerDeadline(in apps: any AppCore) {
        apps.setDeadline(book.awaiting.values.map(\.due).min(), for: self)
    }

    /// The app did not answer in time: the person hears so, and a command still queued for
    /// the app's check-in is dropped, since the person was told it was not carried out.
    private func answerTimedOut(_ ticket: Int, in apps: any AppCore) {
        guard let awaited = book.awaiting.removeValue(forKey: ticket) else { return }
        book.pendingCommands[awaited.bundle]?.removeAll { $0.ticket == ticket }
        updateAssertion(awaited.bundle, in: apps)
        let command = awaited.command.rawValue
        apps.appLogger(awaited.bundle).notice(
            "did not answer the remote command \(command) within \(Self.remoteCommandAnswerSeconds) s")
        awaited.answer.finish(
            .failure(
                ProtocolError(
                    .unavailable,
                    "\(awaited.bundle) did not answer \(command) within \(Self.remoteCommandAnswerSeconds) s "
                        + "(\(awaited.delivery))")))
    }

    /// The app exited: the commands it did not answer fail now rather than at the timeout.
    package func abandonAnswers(of identifier: BundleID, in apps: any AppCore) {
        for (ticket, awaited) in book.awaiting where awaited.bundle == identifier {
            // A command queued for the next launch's check-in still has its chance.
            guard !(book.pendingCommands[identifier] ?? []).contains(where: { $0.ticket == ticket }) else { continue }
            book.awaiting[ticket] = nil
            awaited.answer.finish(
                .failure(
                    ProtocolError(
                        .unavailable, "\(identifier) exited before it answered \(awaited.command.rawValue)")))
        }
        scheduleAnswerDeadline(in: apps)
    }

    /// Undoes ``holdForAnswer(_:delivery:in:)`` for a command that was refused before it was
    /// delivered or queued: the refusal is the person's reply.
    package func release(_ request: RemoteCommandRequest, in apps: any AppCore) {
        guard let ticket = request.ticket else { return }
        book.pendingCommands[request.bundle]?.removeAll { $0.ticket == ticket }
        book.awaiting[ticket] = nil
        scheduleAnswerDeadline(in: apps)
    }

    /// Numbers a command, and holds the person's request until the app answers it or the
    /// wait runs out.
    package func holdForAnswer(_ request: inout RemoteCommandRequest, delivery: String, in apps: any AppCore)
        -> RemoteCommandAnswer
    {
        book.lastTicket += 1
        let ticket = book.lastTicket
        request.ticket = ticket
        let answer = RemoteCommandAnswer()
        book.awaiting[ticket] = AwaitedCommand(
            bundle: request.bundle, command: request.command, delivery: delivery, answer: answer,
            due: apps.now + .seconds(Self.remoteCommandAnswerSeconds))
        scheduleAnswerDeadline(in: apps)
        return answer
    }
}
