import BackgrounderProtocol

/// Where sessions send their requests: the app's connection to the daemon, or a test's fake.
protocol TransferChannel: AnyObject, Sendable {
    /// Sends a request and waits for its reply.
    func request(_ body: ClientMessage.Body) throws -> DaemonMessage
}

extension AppConnection: TransferChannel {}
