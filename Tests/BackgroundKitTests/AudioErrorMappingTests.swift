import BackgrounderProtocol
import Testing

@testable import BackgroundKit

/// The daemon's refusals reach an app's audio calls coded as `AVAudioSession` codes them.
@Suite("AudioError from the daemon's codes", .timeLimit(.minutes(5)))
struct AudioErrorMappingTests {
    @Test(
        "each refusal has its audio code",
        arguments: [
            (ProtocolError.Code.badRequest, AudioError.Code.badParam),
            (.invalidState, .invalidState),
            (.notAuthorized, .recordPermissionDenied),
            (.limitReached, .resourceNotAvailable),
            (.unavailable, .mediaServicesFailed),
            (.notFound, .streamClosed),
            (.notCheckedIn, .notConnected),
            (.notPermitted, .unspecified),
            (.failed, .unspecified),
            (.malformedJSON, .unspecified),
            (ProtocolError.Code(rawValue: "fromTheFuture"), .unspecified),
        ])
    func mapping(daemon: ProtocolError.Code, app: AudioError.Code) {
        #expect(AudioError(ProtocolError(daemon, "why")) == AudioError(app, "why"))
    }

    @Test("a stream control's refusal names the action before the daemon's message")
    func namesTheAction() {
        let error = AudioError(ProtocolError(.invalidState, "stream 3 is paused"), request: "drain")
        #expect(error == AudioError(.invalidState, "drain: stream 3 is paused"))
        #expect(error.description == "drain: stream 3 is paused")
    }
}
