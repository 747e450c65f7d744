import BackgrounderCore
import BackgrounderSystem
package import Foundation

/// The app core's one clock. Every deadline (an app's background time, a capability's next
/// wake) is kept in core time, the time since the core started; persisted schedules keep
/// wall-clock dates, which meet core time in one place, ``instant(of:)``.
package protocol CoreClock: Sendable {
    /// Time since the core started.
    var now: Duration { get }
    /// The wall-clock time now.
    var wallClock: Date { get }
    /// Returns at `deadline` (core time), or throws `CancellationError` when cancelled first.
    func sleep(until deadline: Duration) async throws
}

extension CoreClock {
    /// The core time at which the wall clock will read `date`, as it reads now: the one place
    /// a wall-clock date becomes a deadline. A clock set back or forward later does not move
    /// a deadline already set; the capability sets it again when the clock change reaches it.
    package func instant(of date: Date) -> Duration {
        now + .milliseconds(Int64((date.timeIntervalSince(wallClock) * 1000).rounded(.up)))
    }

    /// The wall-clock date at which core time reaches `instant`, as the wall clock reads now:
    /// the way back, for what a person reads (`bgctl status`'s next wakes).
    package func date(of instant: Duration) -> Date {
        wallClock.addingTimeInterval((instant - now).seconds)
    }
}

/// The system's clocks: the monotonic clock for core time, the real-time clock for dates.
package struct SystemCoreClock: CoreClock {
    private let origin = ContinuousClock.now

    package init() {}

    package var now: Duration { ContinuousClock.now - origin }
    package var wallClock: Date { Date() }

    package func sleep(until deadline: Duration) async throws {
        // On the daemon's one timerfd, not a libdispatch timer (see BootSleep).
        try await BootSleep.sleep(until: origin + deadline)
    }
}
