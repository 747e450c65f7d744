import BackgrounderTestSupport
import Foundation

/// A daemon with the Hello sample loaded, in its own temporary directory.
struct DaemonFixture {
    let directory: TemporaryDirectory
    let bundles: String
    let daemon: DaemonProcess

    init(prefix: String, extraArguments: [String] = []) async throws {
        directory = try TemporaryDirectory(prefix: prefix)
        bundles = directory.appending("bundles")
        try SampleBundles.assemble("Hello", into: bundles)
        daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: extraArguments)
    }

    func tearDown() async {
        await daemon.stop()
        directory.remove()
    }
}
