import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Jetsam with real processes: under memory pressure suspended apps go first, largest
/// first, without notice; the foreground app goes last.
@Suite("Memory pressure")
struct MemoryPressureTests {
    @Test("an app is sized whole: one whose child holds the memory goes before one that holds little")
    func sizedWhole() async throws {
        var ids: [String: String] = [:]
        // Named so that, were only the lead processes measured (both small), the tie-break by
        // identifier would pick the other one.
        let running = try await LifecycleTests.Running(prefix: "jet-child", extraArguments: ["--watch-memory-pressure"])
        {
            bundles in
            ids["small"] = try TestAppBundles.make("Aardvark", into: bundles)
            ids["parent"] = try TestAppBundles.make("Zebra", behavior: "hog-child", into: bundles)
            ids["front"] = try TestAppBundles.make("Front", into: bundles)
        }
        defer { Task { await running.tearDown() } }
        let small = try #require(ids["small"]), parent = try #require(ids["parent"]), front = try #require(ids["front"])
        for id in [parent, small, front] {
            _ = try running.request(.open(AppReference(bundle: id)))
            #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        }
        #expect(
            await waitUntil { running.appLog(parent).contains("child holding 64 MiB") }, "\(running.appLog(parent))")
        #expect(
            try await waitUntil {
                try running.app(parent).state == .suspended && running.app(small).state == .suspended
            })
        guard case .done(let done) = try running.request(.memoryPressure(MemoryPressure(critical: false))) else {
            Issue.record("memory pressure was not relieved")
            return
        }
        #expect(done.detail.contains(parent), "\(done.detail)")
        #expect(try await waitUntil { try running.app(parent).state == .notRunning })
        #expect(try running.app(small).state == .suspended)
    }

    @Test("suspended apps are ended largest first, then the rest; the foreground app last")
    func jetsamOrder() async throws {
        var ids: [String: String] = [:]
        let running = try await LifecycleTests.Running(prefix: "jet", extraArguments: ["--watch-memory-pressure"]) {
            bundles in
            ids["front"] = try TestAppBundles.make("Front", into: bundles)
            ids["small"] = try TestAppBundles.make("Small", into: bundles)
            ids["hog"] = try TestAppBundles.make("Hog", behavior: "hog", into: bundles)
        }
        defer { Task { await running.tearDown() } }
        let front = try #require(ids["front"]), small = try #require(ids["small"]), hog = try #require(ids["hog"])
        if FileManager.default.fileExists(atPath: "/proc/pressure/memory") {
            #expect(
                await waitUntil { running.daemon.log.contains("watching memory pressure") }, "\(running.daemon.log)")
        }
        for id in [hog, small, front] {
            _ = try running.request(.open(AppReference(bundle: id)))
            #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        }
        // Front is in front; the other two were sent back and are suspended after the grace.
        #expect(
            try await waitUntil { try running.app(hog).state == .suspended && running.app(small).state == .suspended })

        var ended: [String] = []
        for round in 0..<3 {
            // The kernel's signal ends suspended apps only; the foreground app needs critical pressure.
            let critical = round == 2
            if critical {
                guard case .done(let none) = try running.request(.memoryPressure(MemoryPressure(critical: false)))
                else {
                    Issue.record("memory pressure request failed")
                    return
                }
                #expect(none.detail.contains("no app to end"))
                #expect(try running.app(front).state == .active)
            }
            guard case .done(let done) = try running.request(.memoryPressure(MemoryPressure(critical: critical))) else {
                Issue.record("memory pressure was not relieved")
                return
            }
            let victim = try #require([hog, small, front].first { done.detail.contains($0) }, "\(done.detail)")
            #expect(try await waitUntil { try running.app(victim).state == .notRunning })
            #expect(try running.app(victim).lastExit?.reason == "memory pressure")
            ended.append(victim)
        }
        #expect(ended == [hog, small, front])
        // Without notice: jetsam sends no willTerminate.
        #expect(!running.appLog(hog).contains("willTerminate"))
        #expect(!running.appLog(small).contains("willTerminate"))
    }
}
