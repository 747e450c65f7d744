import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem

/// The core is what capabilities receive; the reads below are the ones only the contract
/// needs (the rest of ``AppCore`` the core has for its own use too).
extension AppManager: AppCore {
    package func bundle(of identifier: BundleID) throws(ProtocolError) -> ValidatedBundle {
        try app(identifier).bundle
    }

    package func isForceQuit(_ identifier: BundleID) -> Bool { forceQuit.contains(identifier) }

    package func assertions(of identifier: BundleID) -> Set<BackgroundAssertion> {
        apps[identifier]?.lifecycle.assertions ?? []
    }

    package func process(of identifier: BundleID) -> Supervisor.Launched? { apps[identifier]?.process }

    package func containerPaths(of identifier: BundleID) -> [String] {
        [supervisor.dataPath(for: identifier), supervisor.temporaryPath(for: identifier)]
    }

    package var appDirectories: [String] { supervisor.appDirectories }

    package func deliver(
        _ reason: LaunchReason, to identifier: BundleID, window: EventWindowKind?, payload: JSONValue?, task: String?,
        session: String?
    ) throws(ProtocolError) -> (done: Done, window: EventWindowID?) {
        try deliverEvent(identifier, reason, window: window, payload: payload, task: task, session: session)
    }
}
