import BackgrounderProtocol
import Testing

@testable import BackgroundKit

/// The daemon's refusals reach a location delegate coded as Core Location codes them.
@Suite("LocationError from the daemon's codes", .timeLimit(.minutes(5)))
struct LocationErrorMappingTests {
    @Test(
        "updates and authorization: not authorized is denied, a missing service no fix yet, the rest unavailable",
        arguments: [
            (ProtocolError.Code.notAuthorized, LocationError.Code.denied),
            (.unavailable, .locationUnknown),
            (.notCheckedIn, .unavailable),
            (.badRequest, .unavailable),
            (.notPermitted, .unavailable),
            (.invalidState, .unavailable),
            (.notFound, .unavailable),
            (.limitReached, .unavailable),
            (.failed, .unavailable),
            (ProtocolError.Code(rawValue: "fromTheFuture"), .unavailable),
        ])
    func location(daemon: ProtocolError.Code, delegate: LocationError.Code) {
        let error = LocationError(ProtocolError(daemon, "why it was refused"), refusing: .location)
        #expect(error == LocationError(delegate, "why it was refused"))
    }

    @Test(
        "regions: not authorized is region monitoring denied, a missing service no fix yet, the rest a monitoring failure",
        arguments: [
            (ProtocolError.Code.notAuthorized, LocationError.Code.regionMonitoringDenied),
            (.unavailable, .locationUnknown),
            (.notCheckedIn, .unavailable),
            (.limitReached, .regionMonitoringFailure),
            (.badRequest, .regionMonitoringFailure),
            (.notFound, .regionMonitoringFailure),
            (.invalidState, .regionMonitoringFailure),
            (.notPermitted, .regionMonitoringFailure),
            (.failed, .regionMonitoringFailure),
        ])
    func regionMonitoring(daemon: ProtocolError.Code, delegate: LocationError.Code) {
        let error = LocationError(ProtocolError(daemon, "region 'home': why"), refusing: .regionMonitoring)
        #expect(error == LocationError(delegate, "region 'home': why"))
    }

    @Test("a refusal is never reported as denied unless the daemon said not authorized")
    func deniedOnlyWhenNotAuthorized() {
        for code in ProtocolError.Code.known where code != .notAuthorized {
            for request in [LocationError.Request.location, .regionMonitoring] {
                let mapped = LocationError.code(for: code, refusing: request)
                #expect(mapped != .denied && mapped != .regionMonitoringDenied, "\(code) \(request)")
            }
        }
    }
}
