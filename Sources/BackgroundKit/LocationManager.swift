public import BackgrounderCore
import BackgrounderProtocol

/// Location for an app, as `CLLocationManager`: standard updates, significant changes,
/// region monitoring and authorization, from the daemon's gpsd.
///
/// Settings apply to the app as a whole: the daemon keeps one subscription per app, so it
/// survives the app being suspended, killed or relaunched, and fixes that arrive meanwhile
/// queue until the app takes them (they reach the delegate together). Every manager with a
/// delegate hears every event. Use it on the main actor, after ``Application/main(delegate:)``
/// has checked in.
@MainActor
public final class LocationManager {
    /// Gets the events. Setting it tells the daemon the app is ready for any that queued.
    public weak var delegate: (any LocationManagerDelegate)? {
        didSet {
            guard delegate != nil else { return }
            post(.locationReady)
        }
    }

    /// How accurate fixes should be, in metres (``LocationAccuracy``); fixes worse than this
    /// are held back unless nothing better came for 10 s.
    public var desiredAccuracy: Double = LocationAccuracy.best {
        didSet { if isUpdating { sendSubscription() } }
    }

    /// Metres the device must move before the next standard update;
    /// ``LocationManager/distanceFilterNone`` for every fix.
    public var distanceFilter: Double = LocationManager.distanceFilterNone {
        didSet { if isUpdating { sendSubscription() } }
    }

    /// Whether standard updates continue in the background. Needs the `location` background
    /// mode and "always" authorization; the app then keeps running (or, with deferred
    /// updates, is woken with batches).
    public var allowsBackgroundLocationUpdates = false {
        didSet { if isUpdating { sendSubscription() } }
    }

    /// `pausesLocationUpdatesAutomatically`: after the device stood still for the
    /// ``activityType``'s time, updates pause (``LocationManagerDelegate/locationManagerDidPauseLocationUpdates(_:)``)
    /// and the app may be suspended; they resume by themselves once it moves
    /// (``LocationManagerDelegate/locationManagerDidResumeLocationUpdates(_:)``, then the fix).
    /// Off unless set, unlike iOS, so an app that counts on every fix keeps it.
    public var pausesLocationUpdatesAutomatically = false {
        didSet { if isUpdating { sendSubscription() } }
    }

    /// What the updates are for, as `CLActivityType`: how long standing still pauses them.
    public var activityType: ActivityType = .other {
        didSet { if isUpdating { sendSubscription() } }
    }

    /// `kCLDistanceFilterNone`: every fix.
    public static let distanceFilterNone: Double = -1

    /// The most recent fix this manager delivered.
    public private(set) var location: Location?

    /// What the person granted, as the daemon last said.
    public private(set) var authorizationStatus: LocationAuthorization = .notDetermined

    private var isUpdating = false
    private var isMonitoringSignificantChanges = false
    private var deferral: LocationDeferral?

    /// Creates a manager and learns the current authorization.
    public init() {
        LocationManager.managers.append(Weak(self))
        if let reply = request(.requestAuthorization(AuthorizationRequest(level: nil))),
            case .authorization(let status) = reply.body
        {
            authorizationStatus = status.location
        }
    }

    // MARK: Authorization

    /// Asks for location in the background too. The daemon never grants by itself: a person
    /// runs `bgctl authorize ID location always`. Needs `NSLocationAlwaysAndWhenInUseUsageDescription`.
    public func requestAlwaysAuthorization() { requestAuthorization(.always) }

    /// Asks for location while the app is in use. Needs `NSLocationWhenInUseUsageDescription`.
    public func requestWhenInUseAuthorization() { requestAuthorization(.whenInUse) }

    private func requestAuthorization(_ level: LocationAuthorization) {
        guard let reply = request(.requestAuthorization(AuthorizationRequest(level: level))) else { return }
        switch reply.body {
        case .authorization(let status): setAuthorization(status.location)
        case .error(let error):
            delegate?.locationManager(self, didFailWithError: LocationError(error, refusing: .location))
        default: break
        }
    }

    private func setAuthorization(_ status: LocationAuthorization) {
        let changed = status != authorizationStatus
        let wasUsable = authorizationStatus == .whenInUse || authorizationStatus == .always
        authorizationStatus = status
        // As CLLocationManager: updates asked for before the person answered start once they
        // allow it (the daemon refused the subscription while nothing was decided).
        if changed, !wasUsable, status == .whenInUse || status == .always,
            isUpdating || isMonitoringSignificantChanges
        {
            sendSubscription()
        }
        if changed { delegate?.locationManagerDidChangeAuthorization(self) }
    }

    // MARK: Updates

    /// Starts standard updates.
    public func startUpdatingLocation() {
        isUpdating = true
        sendSubscription()
    }

    /// Stops standard updates.
    public func stopUpdatingLocation() {
        isUpdating = false
        deferral = nil
        sendSubscription()
    }

    /// Starts significant-change monitoring: a fix after a move of about 500 m, at most every
    /// few minutes. With "always", the app is woken or relaunched for it, even after a force quit.
    public func startMonitoringSignificantLocationChanges() {
        isMonitoringSignificantChanges = true
        sendSubscription()
    }

    /// Stops significant-change monitoring.
    public func stopMonitoringSignificantLocationChanges() {
        isMonitoringSignificantChanges = false
        sendSubscription()
    }

    /// Lets the app be suspended while in the background: its fixes queue and it is woken to
    /// take them together after `distance` metres or `timeout` seconds, whichever comes first.
    public func allowDeferredLocationUpdates(untilTraveled distance: Double, timeout: Double) {
        deferral = LocationDeferral(
            distance: distance > 0 && distance.isFinite ? distance : nil,
            timeout: timeout > 0 && timeout.isFinite ? timeout : nil
        )
        if isUpdating { sendSubscription() }
    }

    /// Back to a fix at a time, the app kept running in the background.
    public func disallowDeferredLocationUpdates() {
        deferral = nil
        if isUpdating { sendSubscription() }
    }

    /// Whether significant-change monitoring works here (it needs only gpsd).
    public static func significantLocationChangeMonitoringAvailable() -> Bool { true }

    private func sendSubscription() {
        let subscription = LocationSubscription(
            standard: isUpdating
                ? StandardUpdateFilter.Configuration(
                    desiredAccuracy: desiredAccuracy, distanceFilter: distanceFilter > 0 ? distanceFilter : nil,
                    pausesAutomatically: pausesLocationUpdatesAutomatically, activityType: activityType)
                : nil,
            allowsBackgroundUpdates: allowsBackgroundLocationUpdates,
            deferral: deferral,
            significantChanges: isMonitoringSignificantChanges
        )
        guard let reply = request(.locationUpdates(subscription)) else { return }
        if case .error(let error) = reply.body {
            delegate?.locationManager(self, didFailWithError: LocationError(error, refusing: .location))
        }
    }

    // MARK: Regions

    /// Starts monitoring a region; entries and exits wake or relaunch the app. Needs "always".
    public func startMonitoring(for region: CircularRegion) {
        guard let reply = request(.startMonitoring(RegionRequest(region: region))) else { return }
        if case .error(let error) = reply.body {
            delegate?.locationManager(
                self, monitoringDidFailFor: region, withError: LocationError(error, refusing: .regionMonitoring))
        }
    }

    /// Stops monitoring a region.
    public func stopMonitoring(for region: CircularRegion) {
        _ = request(.stopMonitoring(RegionReference(identifier: region.identifier)))
    }

    /// The regions the daemon monitors for this app (they persist across launches).
    public var monitoredRegions: Set<CircularRegion> {
        guard let reply = request(.regions(RegionQuery())), case .regions(let list) = reply.body else { return [] }
        return Set(list.regions.map(\.region))
    }

    /// Asks where the device is relative to a region; the answer goes to
    /// ``LocationManagerDelegate/locationManager(_:didDetermineState:for:)``.
    public func requestState(for region: CircularRegion) {
        guard let reply = request(.requestState(RegionReference(identifier: region.identifier))) else { return }
        switch reply.body {
        case .regionState(let state):
            delegate?.locationManager(self, didDetermineState: state.state, for: region)
        case .error(let error):
            delegate?.locationManager(
                self, monitoringDidFailFor: region, withError: LocationError(error, refusing: .regionMonitoring))
        default: break
        }
    }

    // MARK: Talking to the daemon

    private func request(_ body: ClientMessage.Body) -> DaemonMessage? {
        guard let connection = Application.shared.daemonConnection else {
            delegate?.locationManager(
                self, didFailWithError: LocationError(.unavailable, "the app has not checked in with backgrounderd"))
            return nil
        }
        do {
            return try connection.request(body)
        } catch {
            delegate?.locationManager(self, didFailWithError: LocationError(.unavailable, "\(error)"))
            return nil
        }
    }

    private func post(_ body: ClientMessage.Body) {
        try? Application.shared.daemonConnection?.post(body)
    }

    // MARK: Events from the daemon

    private struct Weak {
        weak var manager: LocationManager?
        init(_ manager: LocationManager) { self.manager = manager }
    }

    private static var managers: [Weak] = []

    /// The app reconnected to a restarted daemon: what it queued meanwhile (and anything sent
    /// but not acknowledged) comes again once a manager has a delegate.
    static func reconnected() {
        managers.removeAll { $0.manager == nil }
        guard let listening = managers.compactMap(\.manager).first(where: { $0.delegate != nil }) else { return }
        listening.post(.locationReady)
    }

    /// Hands a location message from the daemon to every manager with a delegate.
    static func receive(_ message: DaemonMessage) {
        managers.removeAll { $0.manager == nil }
        let listening = managers.compactMap(\.manager).filter { $0.delegate != nil }
        switch message.body {
        case .locations(let batch):
            // Unheard events stay queued in the daemon and come again once a delegate is set.
            guard !listening.isEmpty, let last = batch.events.last else { return }
            for manager in listening { manager.deliver(batch.events) }
            try? Application.shared.daemonConnection?.post(.locationAck(LocationAck(through: last.seq)))
        case .locationStatus(let status):
            for manager in listening {
                manager.setAuthorization(status.authorization)
                if let lost = status.storageError {
                    manager.delegate?.locationManager(manager, didFailWithError: LocationError(.eventsNotStored, lost))
                } else if !status.available {
                    manager.delegate?.locationManager(
                        manager,
                        didFailWithError: LocationError(.locationUnknown, status.detail ?? "gpsd is not connected"))
                }
            }
        case .authorization(let status):
            for manager in listening { manager.setAuthorization(status.location) }
        default:
            break
        }
    }

    private func deliver(_ events: [LocationEvent]) {
        var fixes: [Location] = []
        func flush() {
            guard !fixes.isEmpty else { return }
            location = fixes.last
            delegate?.locationManager(self, didUpdateLocations: fixes)
            fixes = []
        }
        for event in events {
            switch event.kind {
            case .location:
                fixes.append(event.location)
            case .paused:
                flush()
                delegate?.locationManagerDidPauseLocationUpdates(self)
            case .resumed:
                flush()
                delegate?.locationManagerDidResumeLocationUpdates(self)
            case .enter, .exit:
                flush()
                guard let region = event.region else { continue }
                if event.kind == .enter {
                    delegate?.locationManager(self, didEnterRegion: region)
                } else {
                    delegate?.locationManager(self, didExitRegion: region)
                }
            }
        }
        flush()
    }
}
