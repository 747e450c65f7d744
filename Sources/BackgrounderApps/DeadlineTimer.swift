import BackgrounderAppCore
import BackgrounderCore

/// The core's one timer: every deadline, each app's own (the end of its background time, a
/// grace period) and each capability's next wake, on one task that sleeps until the soonest.
/// No deadline, no task: an idle core makes no timer wakeups.
@AppCoreActor
final class DeadlineTimer {
    /// Whose deadline it is.
    enum Owner: Hashable {
        /// An app's life cycle (``AppLifecycle/nextDeadline``).
        case app(BundleID)
        /// A capability's next wake, by its object's identity.
        case capability(ObjectIdentifier)
    }

    private let clock: any CoreClock
    private let reached: @AppCoreActor ([Owner]) -> Void
    private var deadlines: [Owner: Duration] = [:]
    private var armed: Duration?
    private var task: Task<Void, Never>?

    /// - Parameters:
    ///   - clock: The core's clock.
    ///   - reached: Called with the owners whose deadline has come, apps first (by name).
    init(clock: any CoreClock, reached: @escaping @AppCoreActor ([Owner]) -> Void) {
        self.clock = clock
        self.reached = reached
    }

    /// Sets an owner's deadline, replacing the one it had; `nil` clears it.
    func set(_ deadline: Duration?, for owner: Owner) {
        guard deadlines[owner] != deadline else { return }
        deadlines[owner] = deadline
        arm()
    }

    /// The owner's deadline, if it has one.
    func deadline(of owner: Owner) -> Duration? { deadlines[owner] }

    /// Clears every capability's deadline: at shutdown, once the capabilities stopped, none
    /// may start work (a scheduled launch, a notification) while the apps are being ended.
    func clearCapabilities() {
        deadlines = deadlines.filter { if case .app = $0.key { true } else { false } }
        arm()
    }

    private func arm() {
        let soonest = deadlines.values.min()
        guard soonest != armed else { return }
        task?.cancel()
        armed = soonest
        guard let soonest else {
            task = nil
            return
        }
        task = Task { [weak self, clock] in
            do {
                try await clock.sleep(until: soonest)
            } catch {
                return
            }
            // Replaced while its sleep was ending: the task that replaced it is in charge.
            guard !Task.isCancelled else { return }
            self?.fire()
        }
    }

    private func fire() {
        armed = nil
        task = nil
        let now = clock.now
        let due = deadlines.filter { $0.value <= now }.keys.sorted(by: Self.order)
        for owner in due { deadlines[owner] = nil }
        if !due.isEmpty { reached(due) }
        arm()
    }

    /// Apps before capabilities, apps by name: one order for deadlines that fall together.
    private static func order(_ a: Owner, _ b: Owner) -> Bool {
        switch (a, b) {
        case (.app(let x), .app(let y)): x < y
        case (.app, .capability): true
        case (.capability, .app): false
        case (.capability(let x), .capability(let y)): x < y
        }
    }
}
