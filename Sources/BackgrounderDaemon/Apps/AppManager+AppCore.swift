import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem

/// The core is what capabilities receive; the reads below are the ones only the contract
/// needs (the rest of ``AppCore`` the core has for its own use too).
extension AppManager: AppCore {
    func bundle(of identifier: String) throws(ProtocolError) -> ValidatedBundle {
        try app(identifier).bundle
    }

    func isForceQuit(_ identifier: String) -> Bool { forceQuit.contains(identifier) }

    func assertions(of identifier: String) -> Set<BackgroundAssertion> {
        apps[identifier]?.lifecycle.assertions ?? []
    }

    func process(of identifier: String) -> Supervisor.Launched? { apps[identifier]?.process }

    func containerPaths(of identifier: String) -> [String] {
        [supervisor.dataPath(for: identifier), supervisor.temporaryPath(for: identifier)]
    }

    var appDirectories: [String] { supervisor.appDirectories }
}
