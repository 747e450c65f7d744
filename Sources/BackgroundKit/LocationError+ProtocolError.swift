import BackgrounderProtocol

extension LocationError {
    /// What the app asked for, since Core Location reports a refused region with codes of
    /// its own.
    enum Request: Sendable, Hashable {
        /// Authorization or updates, reported to `didFailWithError`.
        case location
        /// Monitoring a region or asking its state, reported to `monitoringDidFailFor`.
        case regionMonitoring
    }

    /// The error the delegate hears when the daemon refuses a request, coded as Core
    /// Location would code it, with the daemon's message.
    init(_ error: ProtocolError, refusing request: Request) {
        self.init(Self.code(for: error.code, refusing: request), error.message)
    }

    /// The one table from the daemon's codes to the delegate's.
    static func code(for code: ProtocolError.Code, refusing request: Request) -> Code {
        switch (code, request) {
        case (.notAuthorized, .location): .denied
        case (.notAuthorized, .regionMonitoring): .regionMonitoringDenied
        // gpsd is not there: Core Location's "no fix right now, still trying".
        case (.unavailable, _): .locationUnknown
        case (.notCheckedIn, _): .unavailable
        // Too many regions, a region that is not valid or not monitored, a failure to keep it.
        case (_, .regionMonitoring): .regionMonitoringFailure
        case (_, .location): .unavailable
        }
    }
}
