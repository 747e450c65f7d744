/// What each app gets for one fix: the pure half of the daemon's location routing.
///
/// The region monitor's transitions for the fix and every listener's filters produce at most
/// one event per app and region, and for each app the strongest ``LocationRouting/Decision``
/// among its events (relaunch beats wake beats deliver beats queue). The daemon stores the
/// events, then carries the decisions out.
public struct FixDispatch: Sendable {
    /// One event for one app's queue.
    public struct Event: Sendable, Hashable {
        /// What the app hears.
        public enum Kind: String, Sendable, Hashable {
            /// `didUpdateLocations`: a standard update or a significant change.
            case location
            /// `didEnterRegion`.
            case enter
            /// `didExitRegion`.
            case exit
            /// Standing still paused standard updates.
            case paused
            /// Moving resumed them.
            case resumed
        }

        /// The app.
        public var owner: BundleID
        /// What it hears.
        public var kind: Kind
        /// The fix (for a region event, the fix that confirmed it).
        public var location: Location
        /// The region entered or left.
        public var region: CircularRegion?
    }

    /// What the app core knows of an app when a fix arrives.
    public struct Recipient: Sendable {
        /// The manifest that speaks for the app now.
        public var manifest: AppManifest
        /// What a person granted.
        public var authorization: LocationAuthorization
        /// Its life-cycle state.
        public var state: ApplicationState

        /// Creates a recipient.
        public init(manifest: AppManifest, authorization: LocationAuthorization, state: ApplicationState) {
            self.manifest = manifest
            self.authorization = authorization
            self.state = state
        }
    }

    /// Events to queue, in order.
    public private(set) var events: [Event] = []
    /// Per app, what to do once its events are stored.
    public private(set) var decisions: [BundleID: LocationRouting.Decision] = [:]
    /// Apps whose significant-change filter passed this fix.
    public private(set) var significantChanges: [BundleID] = []
    /// Apps whose standard updates this fix paused (`true`) or resumed (`false`).
    public private(set) var pauseChanges: [BundleID: Bool] = [:]

    /// Routes one fix.
    /// - Parameters:
    ///   - fix: The fix.
    ///   - transitions: The region monitor's transitions for it.
    ///   - listeners: Every app's listener; their filters advance.
    ///   - recipient: What the core knows of an app, or `nil` for one it cannot serve (no
    ///     longer loaded): its events are dropped.
    public init(
        _ fix: Location,
        transitions: [RegionTransition],
        listeners: inout [BundleID: LocationListener],
        recipient: (BundleID) -> Recipient?
    ) {
        for transition in transitions {
            // A notification's region posts it; the app hears only its own regions.
            guard case .app(let owner) = transition.owner, let notification = transition.notification else { continue }
            route(
                .region,
                Event(
                    owner: owner, kind: notification == .enter ? .enter : .exit,
                    location: transition.location, region: transition.region),
                subscription: listeners[owner]?.subscription ?? LocationSubscription(),
                recipient: recipient)
        }
        for identifier in listeners.keys.sorted() {
            guard var listener = listeners[identifier] else { continue }
            let (standardPassed, pause) = listener.standard?.offerNoting(fix) ?? (false, nil)
            let significantPassed = listener.significant?.offer(fix) ?? false
            var deferralDue = false
            if standardPassed, let deferral = listener.subscription.deferral,
                recipient(identifier)?.state == .suspended
            {
                let first = listener.firstDeferred ?? fix
                listener.firstDeferred = first
                deferralDue = deferral.isDue(first: first, latest: fix)
            }
            listeners[identifier] = listener
            let event = Event(owner: identifier, kind: .location, location: fix)
            if let pause {
                pauseChanges[identifier] = pause == .paused
                // A resume wakes a suspended app, as a deferral that came due does: it was let
                // sleep because it stood still, and now it moves.
                route(
                    .standard, Event(owner: identifier, kind: pause == .paused ? .paused : .resumed, location: fix),
                    subscription: listener.subscription, deferralDue: pause == .resumed, recipient: recipient)
            }
            // One event per fix. A significant change routes at least as far as a standard
            // update would (it also wakes and relaunches), so it decides when both passed.
            if significantPassed {
                significantChanges.append(identifier)
                route(.significantChange, event, subscription: listener.subscription, recipient: recipient)
            } else if standardPassed {
                let wakes = deferralDue || pause == .resumed
                route(.standard, event, subscription: listener.subscription, deferralDue: wakes, recipient: recipient)
            }
        }
    }

    private mutating func route(
        _ source: LocationRouting.Source, _ event: Event, subscription: LocationSubscription,
        deferralDue: Bool = false, recipient: (BundleID) -> Recipient?
    ) {
        guard let facts = recipient(event.owner) else { return }
        let decision = LocationRouting.decide(
            source, manifest: facts.manifest, authorization: facts.authorization, subscription: subscription,
            state: facts.state, deferralDue: deferralDue)
        if case .drop = decision { return }
        events.append(event)
        decisions[event.owner] = Self.stronger(decisions[event.owner], decision)
    }

    private static func stronger(_ a: LocationRouting.Decision?, _ b: LocationRouting.Decision)
        -> LocationRouting.Decision
    {
        func rank(_ decision: LocationRouting.Decision?) -> Int {
            switch decision {
            case .queueAndLaunch: 4
            case .queueAndWake: 3
            case .deliver: 2
            case .queue: 1
            case .drop, nil: 0
            }
        }
        return rank(a) >= rank(b) ? a ?? b : b
    }
}
