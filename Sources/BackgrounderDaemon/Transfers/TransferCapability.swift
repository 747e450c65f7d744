import BackgrounderCore
import BackgrounderProtocol
import Logging

/// Background transfers (background `URLSession`): downloads and uploads the daemon carries
/// out for apps, which may be suspended or not running meanwhile.
final class TransferCapability: AppCapability {
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func app(_ identifier: String, changed change: LifecycleChange, in apps: isolated AppManager) {}
}
