package import BackgrounderAppCore
package import BackgrounderProtocol

extension AudioCapability {
    /// Answers an audio request; who may send it was checked before it came here.
    package func handle(_ request: ClientMessage.AudioRequest, from requester: Requester, in apps: any AppCore)
        async throws -> DaemonMessage.Body
    {
        switch request {
        case .audioSession(let request):
            .done(try setSession(try requester.app(), request, in: apps))
        case .openAudioStream(let request):
            .audioStream(try openStream(try requester.app(), request, in: apps))
        case .audioStreamControl(let control):
            .done(try await controlStream(try requester.app(), control, in: apps))
        case .nowPlaying(let info):
            .done(setNowPlaying(try requester.app(), info, in: apps))
        case .remoteCommand(let request):
            // A person's: the reply waits for the app's answer, off this actor's work.
            .done(try await remoteCommand(request, in: apps).value())
        case .remoteCommandStatus(let report):
            .done(try answer(try requester.app(), report, in: apps))
        case .audio(let query):
            .audioStatus(status(query, in: apps))
        case .audioRoute(let request):
            .done(try await route(request, in: apps))
        }
    }
}
