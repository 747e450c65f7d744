import BackgrounderCore
import Testing

/// What a test started and must stop before it counts as finished: daemons, servers, buses,
/// scratch directories. Swift's `defer` cannot await, and a `Task` started from one runs on
/// after the test, so frozen apps, cgroups and directories could outlive the run. Instead a
/// test registers each teardown with ``atTeardown(_:)`` as it builds the thing, and the
/// ``Trait/tearsDown`` trait runs them after the test, newest first (as `defer` would),
/// awaited, whether the test passed, failed or threw.
final class Teardowns: Sendable {
    /// The registry of the test running in this task, set by ``TeardownScope``.
    @TaskLocal static var current: Teardowns?

    private let steps = Locked<[@Sendable () async -> Void]>([])

    func add(_ step: @escaping @Sendable () async -> Void) {
        steps.withLock { $0.append(step) }
    }

    /// Runs every registered step, newest first; steps added while running run too.
    func run() async {
        while let step = steps.withLock({ $0.popLast() }) {
            await step()
        }
    }
}

/// Registers `step` to run, awaited, when the current test ends (see ``Teardowns``). A test
/// outside a suite with `.tearsDown` records an issue naming the missing trait, and the step
/// runs unawaited as a last resort.
func atTeardown(
    sourceLocation: SourceLocation = #_sourceLocation, _ step: @escaping @Sendable () async -> Void
) {
    guard let teardowns = Teardowns.current else {
        Issue.record(
            "atTeardown outside a suite marked .tearsDown: its teardown would not be awaited",
            sourceLocation: sourceLocation)
        Task { await step() }
        return
    }
    teardowns.add(step)
}

/// The trait behind `.tearsDown`: gives each test case its own ``Teardowns`` and awaits them.
struct TeardownScope: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let teardowns = Teardowns()
        do {
            try await Teardowns.$current.withValue(teardowns) { try await function() }
        } catch {
            await teardowns.run()
            throw error
        }
        await teardowns.run()
    }
}

extension Trait where Self == TeardownScope {
    /// Every test in the suite awaits what it registered with ``atTeardown(_:)`` before it ends.
    static var tearsDown: Self { TeardownScope() }
}
