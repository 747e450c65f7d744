public import BackgrounderCore

/// `AUTHORIZE`: a person grants or refuses a permission (`bgctl authorize ID SERVICE LEVEL`).
///
/// On the wire: `bundle`, `service` (`location` or `microphone`) and `level`, spelled as a
/// person types them; an unknown service or level is refused naming the field.
public struct Authorize: Sendable, Hashable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// What the person decided, and about which service.
    public var grant: AuthorizationGrant

    /// The service the grant is about.
    public var service: AuthorizationService { grant.service }

    /// Creates a grant.
    public init(bundle: BundleID, grant: AuthorizationGrant) {
        self.bundle = bundle
        self.grant = grant
    }
}

extension Authorize: Codable {
    private enum CodingKeys: String, CodingKey {
        case bundle, service, level
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundle = try container.decode(BundleID.self, forKey: .bundle)
        let service = try container.decode(String.self, forKey: .service)
        let level = try container.decode(String.self, forKey: .level)
        do {
            grant = try AuthorizationGrant(service: service, level: level)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: error.field == .service ? .service : .level, in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bundle, forKey: .bundle)
        try container.encode(grant.service, forKey: .service)
        try container.encode(grant.level, forKey: .level)
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
    public var bundle: BundleID?

    /// Creates a query.
    public init(bundle: BundleID? = nil) {
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
        /// `locationManagerDidPauseLocationUpdates` (protocol 1.13): standing still paused
        /// standard updates; `location` is where.
        case paused
        /// `locationManagerDidResumeLocationUpdates` (protocol 1.13): the device moved; the
        /// fix that says where follows.
        case resumed
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

/// `LOCATION_STATUS`: sent to apps that use location, unasked, when gpsd comes or goes, the
/// authorization changes, or events for the app could not be stored.
public struct LocationServiceStatus: Sendable, Hashable, Codable {
    /// Whether gpsd is connected.
    public var available: Bool
    /// Why not, when it is not.
    public var detail: String?
    /// The app's authorization.
    public var authorization: LocationAuthorization
    /// Set when events for the app were lost because the daemon could not store them (a full
    /// disk): how many and why. Its track has a gap there.
    public var storageError: String?

    /// Creates a status.
    public init(
        available: Bool, detail: String? = nil, authorization: LocationAuthorization, storageError: String? = nil
    ) {
        self.available = available
        self.detail = detail
        self.authorization = authorization
        self.storageError = storageError
    }
}
