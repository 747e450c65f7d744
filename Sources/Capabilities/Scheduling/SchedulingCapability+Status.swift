package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

/// `bgctl status`: the tasks asked for and the windows open now (the core adds the next wake).
extension SchedulingCapability {
    package func status(in apps: any AppCore) -> CapabilityStatus {
        let tasks = requests.values.flatMap(\.values)
        let refresh = tasks.filter { $0.kind == .appRefresh }.count
        let processing = tasks.filter { $0.kind == .processing }.count
        let open = windows.values.reduce(0) { $0 + $1.count }
        let summary =
            "\(refresh) app refresh and \(processing) processing task(s) requested; \(open) event window(s) open; "
            + "\(pushEndpoints.count) push endpoint(s)"
        return CapabilityStatus(
            name: "scheduling", summary: summary,
            counts: [
                "appRefresh": refresh, "processing": processing, "openWindows": open,
                "pushEndpoints": pushEndpoints.count,
            ])
    }
}
