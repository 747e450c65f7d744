package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

/// `bgctl status`: transfers moving, waiting, and finished but not yet heard by their app.
extension TransferCapability {
    package func status(in apps: any AppCore) -> CapabilityStatus {
        let states = transfers.values.map(\.info.state)
        let running = states.filter { $0 == .running }.count
        let waiting = states.filter { $0 == .waiting }.count
        let finished = states.filter(\.isFinished).count
        return CapabilityStatus(
            name: "transfers",
            summary: "\(running) running, \(waiting) waiting, \(finished) finished and not yet heard by their app",
            counts: ["running": running, "waiting": waiting, "finished": finished])
    }
}
