import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

#if canImport(Glibc)
    import Glibc
#endif

/// Each app's data directory holds at most the quota under a root daemon: judged by what an
/// app that writes without end managed to write, the error it got, and what the daemon can
/// still commit; the volume keeps the app's files across a killed daemon and is never
/// mounted twice.
@Suite(
    "Data quota",
    .enabled(if: SandboxTests.isRoot, "a volume per app needs a root daemon"),
    .enabled(if: FileManager.default.fileExists(atPath: "/dev/loop-control"), "no loop devices here"),
    .timeLimit(.minutes(5)), .tearsDown)
struct DataQuotaTests {
    static let quota = 32 << 20

    /// Loop devices whose backing file is `image`, from sysfs: two would be one image mounted
    /// twice. (Read from sysfs: this process's reads of its mount table missed the volume in
    /// full runs while another process's showed it; docs/TESTING.md, runs AO to AQ.)
    static func loopDevices(backing image: String) -> Int {
        let blocks = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/block")) ?? []
        return blocks.filter { name in
            name.hasPrefix("loop")
                && (try? String(contentsOfFile: "/sys/block/\(name)/loop/backing_file", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) == image
        }.count
    }

    @Test(
        "an app that writes without end stops at its quota with ENOSPC, the daemon commits on, and the volume keeps its files through a killed daemon without being mounted twice"
    )
    func fillerStopsAtQuota() async throws {
        var id = ""
        let running = try await LifecycleTests.Running(
            prefix: "quota", extraArguments: ["--app-data-quota", "32M"]
        ) { bundles in
            id = try PythonAppBundles.make(
                "Filler",
                script: """
                    import errno, os
                    data = os.environ["BACKGROUNDER_DATA_DIR"]
                    total = 0
                    chunk = b"x" * (1 << 20)
                    try:
                        with open(os.path.join(data, "fill.bin"), "wb") as out:
                            while total < (1 << 30):
                                out.write(chunk)
                                out.flush()
                                total += len(chunk)
                        print("wrote %d without an error" % total, flush=True)
                    except OSError as error:
                        print("stopped at %d: %s" % (total, errno.errorcode.get(error.errno)), flush=True)
                    with open(os.path.join(data, "kept.txt"), "w") as kept:
                        kept.write("kept\\n")
                    """, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let sandbox = try running.daemon.status().sandbox ?? ""
        #expect(sandbox.contains("data quota 32 MiB per app (a volume each)"), "\(sandbox)")

        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(
            await waitUntil(timeout: .seconds(60)) { running.appLog(id).contains("stopped at") },
            "\(running.appLog(id))")
        let line = running.appLog(id).split(separator: "\n").first { $0.hasPrefix("stopped at") } ?? ""
        let words = line.split(separator: " ")
        let written = words.count > 2 ? Int(words[2].dropLast()) ?? -1 : -1
        #expect(line.hasSuffix("ENOSPC"), "\(line)")
        #expect(written > Self.quota / 2 && written <= Self.quota, "\(line)")
        let data = running.dataDirectory(id)
        let image = running.daemon.stateDirectory + "/volumes/\(id).img"
        #expect(DataVolumes.isMountPoint(data) && Self.loopDevices(backing: image) == 1)

        // The daemon still commits, and the app's file is there after the daemon is killed.
        guard
            case .done = try running.request(.authorize(Authorize(bundle: BundleID(id), grant: .microphone(.granted))))
        else {
            Issue.record("the grant was not committed")
            return
        }
        #expect(await waitUntil { FileManager.default.fileExists(atPath: data + "/kept.txt") })
        running.daemon.signal(SIGKILL)
        #expect(await running.daemon.waitForExit(timeout: .seconds(10)))
        let next = try await DaemonProcess(
            directory: running.directory, bundleDirectories: [running.bundles],
            extraArguments: ["--app-data-quota", "32M"])
        atTeardown { await next.stop() }
        _ = try next.client().request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).components(separatedBy: "stopped at").count == 3 })
        #expect(DataVolumes.isMountPoint(data))
        #expect(Self.loopDevices(backing: image) == 1, "mounted twice")
        #expect(try String(contentsOfFile: data + "/kept.txt", encoding: .utf8) == "kept\n")

        // A daemon that ends its apps unmounts their volumes.
        #expect(await next.stop())
        #expect(await waitUntil { !DataVolumes.isMountPoint(data) && Self.loopDevices(backing: image) == 0 })
    }
}
