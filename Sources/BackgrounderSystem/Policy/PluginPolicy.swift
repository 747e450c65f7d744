package import BackgrounderCore
import CBackgrounderPolicy
import Foundation
package import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A policy whose numbers come from a plug-in bundle's shared library (see
/// Sources/CBackgrounderPolicy/include/backgrounder_policy.h for the C ABI).
///
/// The scheduling numbers come from the plug-in's optional second entry point, per app and
/// power state; without one they are the standard policy's.
package struct PluginPolicy: BackgroundPolicy {
    package let name: String
    package let numbers: StandardPolicy
    /// The second entry point, if the bundle names one (`BackgrounderPolicySchedulingEntryPoint`).
    package let schedulingEntry: PluginScheduling?

    package func suspendGrace(for app: AppManifest) -> Duration { numbers.suspendGrace(for: app) }
    package func backgroundTaskBudget(for app: AppManifest) -> Duration { numbers.backgroundTaskBudget(for: app) }
    package func expirationWarning(for app: AppManifest) -> Duration { numbers.expirationWarning(for: app) }
    package func crashLoopLimit(for app: AppManifest) -> Int { numbers.crashLoopLimit(for: app) }
    package func crashLoopWindow(for app: AppManifest) -> Duration { numbers.crashLoopWindow(for: app) }
    package func maximumMonitoredRegions(for app: AppManifest) -> Int { numbers.maximumMonitoredRegions(for: app) }
    package func scheduling(for app: AppManifest, onExternalPower: Bool) -> SchedulingPolicy {
        schedulingEntry?.numbers(for: app.bundleIdentifier, onExternalPower: onExternalPower)
            ?? numbers.scheduling(for: app, onExternalPower: onExternalPower)
    }

    /// Loads a policy plug-in.
    /// - Parameters:
    ///   - identifier: The policy bundle's identifier (`--policy`).
    ///   - catalog: The loaded bundles.
    ///   - standard: The standard policy, whose numbers the plug-in starts from.
    ///   - logger: Where bad scheduling numbers are reported (they keep the standard ones).
    /// - Returns: The plug-in's policy.
    /// - Throws: ``DaemonError`` naming the bundle, library or symbol and what went wrong.
    package static func load(
        _ identifier: BundleID, from catalog: BundleCatalog, standard: StandardPolicy,
        logger: Logger = Logger(label: "backgrounderd.policy")
    ) throws -> PluginPolicy {
        guard let bundle = catalog.loaded[identifier] else {
            let refused = catalog.refused.first { $0.path.contains(identifier.rawValue) }
            throw DaemonError(
                .configuration,
                path: "--policy \(identifier)",
                refused.map { "the policy bundle was refused: \($0)" } ?? "no loaded bundle has this identifier"
            )
        }
        guard bundle.manifest.kind == .policy, let symbol = bundle.manifest.policyEntryPoint else {
            throw DaemonError(
                .configuration, path: bundle.path, "is an app, not a policy bundle (CFBundlePackageType BNDL)")
        }
        let library = bundle.executablePath
        // RTLD_LOCAL: the plug-in's symbols stay its own. The handle is never closed: the
        // policy is used for the daemon's whole life.
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
            throw DaemonError(.configuration, path: library, "dlopen failed: \(String(cString: dlerror()))")
        }
        guard let address = dlsym(handle, symbol) else {
            throw DaemonError(.configuration, path: library, "has no symbol '\(symbol)' (BackgrounderPolicyEntryPoint)")
        }
        let entry = unsafeBitCast(address, to: backgrounder_policy_entry_v1.self)
        var numbers = backgrounder_policy_v1(
            abi: BACKGROUNDER_POLICY_ABI_V1,
            suspend_grace: standard.suspendGrace.seconds,
            task_budget: standard.taskBudget.seconds,
            expiration_warning: standard.expirationWarning.seconds,
            crash_loop_limit: Int32(standard.crashLoopLimit),
            crash_loop_window: standard.crashLoopWindow.seconds,
            maximum_regions_per_app: Int32(clamping: standard.maximumMonitoredRegions)
        )
        let status = entry(&numbers)
        guard status == 0 else {
            throw DaemonError(.configuration, path: library, "\(symbol) returned \(status)")
        }
        let seconds = [
            ("suspend_grace", numbers.suspend_grace), ("task_budget", numbers.task_budget),
            ("expiration_warning", numbers.expiration_warning), ("crash_loop_window", numbers.crash_loop_window),
        ]
        for (field, value) in seconds where !(value.isFinite && value >= 0 && value < 86_400 * 365) {
            throw DaemonError(
                .configuration, path: library, "\(symbol) set \(field) to \(value), not a number of seconds")
        }
        guard numbers.crash_loop_limit > 0 else {
            throw DaemonError(
                .configuration, path: library, "\(symbol) set crash_loop_limit to \(numbers.crash_loop_limit)")
        }
        guard numbers.maximum_regions_per_app >= 0 else {
            throw DaemonError(
                .configuration, path: library,
                "\(symbol) set maximum_regions_per_app to \(numbers.maximum_regions_per_app)")
        }
        var schedulingEntry: PluginScheduling?
        if let scheduling = bundle.manifest.policySchedulingEntryPoint {
            guard let address = dlsym(handle, scheduling) else {
                throw DaemonError(
                    .configuration, path: library,
                    "has no symbol '\(scheduling)' (BackgrounderPolicySchedulingEntryPoint)")
            }
            schedulingEntry = PluginScheduling(
                entry: unsafeBitCast(address, to: backgrounder_scheduling_entry_v1.self), symbol: scheduling,
                standard: standard.scheduling, logger: logger)
        }
        return PluginPolicy(
            name: identifier.rawValue,
            numbers: StandardPolicy(
                suspendGrace: .seconds(numbers.suspend_grace),
                taskBudget: .seconds(numbers.task_budget),
                expirationWarning: .seconds(numbers.expiration_warning),
                crashLoopLimit: Int(numbers.crash_loop_limit),
                crashLoopWindow: .seconds(numbers.crash_loop_window),
                maximumMonitoredRegions: Int(numbers.maximum_regions_per_app),
                scheduling: standard.scheduling
            ),
            schedulingEntry: schedulingEntry
        )
    }
}
