public import BackgrounderCore

/// `AUTHORIZE`: a person grants or refuses a permission (`bgctl authorize ID SERVICE LEVEL`).
public struct Authorize: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: String
    /// `location` or `microphone`.
    public var service: String
    /// For location: `always`, `when-in-use` or `never`; for the microphone: `granted` or `denied`.
    public var level: String

    /// Creates a grant.
    public init(bundle: String, service: String, level: String) {
        self.bundle = bundle
        self.service = service
        self.level = level
    }
}

/// `LOCATION_AUTHORIZATION`: an app asks for location (`requestAlwaysAuthorization`,
/// `requestWhenInUseAuthorization`). The daemon checks the usage description and answers with
/// what the person has granted; it never grants by itself.
public struct AuthorizationRequest: Sendable, Hashable, Codable {
    /// `always` or `whenInUse`; absent to ask only what is granted now.
    public var level: LocationAuthorization?

    /// Creates a request.
    public init(level: LocationAuthorization?) {
        self.level = level
    }
}

/// `AUTHORIZATION` reply, and sent unasked when a person changes the grant.
public struct AuthorizationStatus: Sendable, Hashable, Codable {
    /// The app's location authorization.
    public var location: LocationAuthorization

    /// Creates a status.
    public init(location: LocationAuthorization) {
        self.location = location
    }
}

/// `REGION_START`: start monitoring a region (`startMonitoring(for:)`).
public struct RegionRequest: Sendable, Hashable, Codable {
    /// The region; one with the same identifier is replaced.
    public var region: CircularRegion

    /// Creates a request.
    public init(region: CircularRegion) {
        self.region = region
    }
}

/// `REGION_STOP`, `REGION_STATE`: one of the app's regions, by identifier.
public struct RegionReference: Sendable, Hashable, Codable {
    /// The region's identifier.
    public var identifier: String

    /// Names a region.
    public init(identifier: String) {
        self.identifier = identifier
    }
}

/// `REGION_STATE` reply: where the last fix puts the device relative to a region.
public struct RegionStateReply: Sendable, Hashable, Codable {
    /// The region's identifier.
    public var identifier: String
    /// Inside, outside, or unknown (no fix yet, or the fix is in the boundary's margin).
    public var state: RegionState

    /// Creates a reply.
    public init(identifier: String, state: RegionState) {
        self.identifier = identifier
        self.state = state
    }
}

/// `REGIONS`: asks for monitored regions; an app gets its own, `bgctl` names the app.
public struct RegionQuery: Sendable, Hashable, Codable {
    /// The app, for `bgctl regions ID`; absent when an app asks for its own.
    public var bundle: String?

    /// Creates a query.
    public init(bundle: String? = nil) {
        self.bundle = bundle
    }
}

/// `REGIONS` reply.
public struct RegionList: Sendable, Hashable, Codable {
    /// One monitored region.
    public struct Entry: Sendable, Hashable, Codable {
        /// The region.
        public var region: CircularRegion
        /// Its last confirmed state (kept across restarts, so an entry is not reported twice).
        public var state: RegionState

        /// Creates an entry.
        public init(region: CircularRegion, state: RegionState) {
            self.region = region
            self.state = state
        }
    }

    /// The regions, sorted by identifier.
    public var regions: [Entry]

    /// Creates a list.
    public init(regions: [Entry]) {
        self.regions = regions
    }
}

/// One fix or region event in a `LOCATIONS` batch.
public struct LocationEvent: Sendable, Hashable, Codable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A fix: `didUpdateLocations` (standard updates and significant changes).
        case location
        /// `didEnterRegion`.
        case enter
        /// `didExitRegion`.
        case exit
    }

    /// The event's place in the app's queue; acknowledge it with `LOCATION_ACK`.
    public var seq: Int64
    /// What happened.
    public var kind: Kind
    /// The fix (for a region event, the fix that confirmed it).
    public var location: Location
    /// The region, for `enter` and `exit`.
    public var region: CircularRegion?

    /// Creates an event.
    public init(seq: Int64, kind: Kind, location: Location, region: CircularRegion? = nil) {
        self.seq = seq
        self.kind = kind
        self.location = location
        self.region = region
    }
}

/// `LOCATIONS`: sent to an app, unasked, with fixes and region events in queue order. Fixes
/// that waited while it was suspended or not running arrive together.
public struct LocationBatch: Sendable, Hashable, Codable {
    /// The events, oldest first.
    public var events: [LocationEvent]

    /// Creates a batch.
    public init(events: [LocationEvent]) {
        self.events = events
    }

    /// The most events one message carries, so a line stays well under
    /// ``WireLimits/maximumLineLength``; the rest follow once these are acknowledged.
    public static let maximumEvents = 100
}

/// `LOCATION_ACK`: the app has handled every event up to and including `through`; the daemon
/// forgets them. Until then they are sent again after a crash or relaunch.
public struct LocationAck: Sendable, Hashable, Codable {
    /// The last `seq` handled.
    public var through: Int64

    /// Creates an acknowledgement.
    public init(through: Int64) {
        self.through = through
    }
}

/// `LOCATION_STATUS`: sent to apps that use location, unasked, when gpsd comes or goes or
/// the authorization changes.
public struct LocationServiceStatus: Sendable, Hashable, Codable {
    /// Whether gpsd is connected.
    public var available: Bool
    /// Why not, when it is not.
    public var detail: String?
    /// The app's authorization.
    public var authorization: LocationAuthorization

    /// Creates a status.
    public init(available: Bool, detail: String? = nil, authorization: LocationAuthorization) {
        self.available = available
        self.detail = detail
        self.authorization = authorization
    }
}
