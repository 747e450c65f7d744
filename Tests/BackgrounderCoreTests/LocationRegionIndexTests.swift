import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import Testing

/// The region rules written the slow, obvious way: every region classified on every fix, with
/// ``Coordinate/distance(to:)``. The monitor's spatial index must give exactly the same answers.
struct ReferenceRegionMonitor {
    struct Entry {
        var owner: RegionOwner
        var region: CircularRegion
        var state: RegionState
        var candidate: RegionState?
        var agreeing = 0
        var since = 0.0
    }

    let configuration: RegionMonitor.Configuration
    var entries: [Entry] = []

    mutating func add(_ region: CircularRegion, owner: RegionOwner, state: RegionState) {
        remove(region.identifier, owner: owner)
        entries.append(Entry(owner: owner, region: region, state: state))
    }

    mutating func remove(_ identifier: String, owner: RegionOwner) {
        entries.removeAll { $0.owner == owner && $0.region.identifier == identifier }
    }

    mutating func offer(_ location: Location) -> Set<RegionTransition> {
        let accuracy = location.horizontalAccuracy ?? configuration.assumedAccuracy
        guard location.coordinate.isValid, location.timestamp.isFinite, accuracy >= 0,
            accuracy <= configuration.maximumAccuracy
        else { return [] }
        let margin = configuration.baseMargin + accuracy
        var transitions: Set<RegionTransition> = []
        for index in entries.indices {
            var entry = entries[index]
            let radius = entry.region.radius
            let distance = entry.region.center.distance(to: location.coordinate)
            let observed: RegionState =
                distance <= radius - min(margin, radius / 2)
                ? .inside : distance >= radius + margin ? .outside : .unknown
            if observed == .unknown { continue }
            if observed == entry.state {
                entry.candidate = nil
            } else {
                if entry.candidate != observed || location.timestamp < entry.since {
                    entry.candidate = observed
                    entry.agreeing = 0
                    entry.since = location.timestamp
                }
                entry.agreeing += 1
                if entry.agreeing >= configuration.agreement
                    && (entry.state == .unknown || location.timestamp - entry.since >= configuration.dwell)
                {
                    transitions.insert(
                        RegionTransition(
                            owner: entry.owner, region: entry.region, from: entry.state, to: observed,
                            location: location, qualifiedAt: entry.since))
                    entry.state = observed
                    entry.candidate = nil
                }
            }
            entries[index] = entry
        }
        return transitions
    }
}

/// The point `distance` metres from `start` on `bearing` degrees, on the sphere.
func destination(_ start: Coordinate, distance: Double, bearing: Double) -> Coordinate {
    let angle = distance / 6_371_008.8
    let latitude = start.latitude * .pi / 180
    let direction = bearing * .pi / 180
    let endLatitude = asin(sin(latitude) * cos(angle) + cos(latitude) * sin(angle) * cos(direction))
    let endLongitude =
        start.longitude * .pi / 180
        + atan2(sin(direction) * sin(angle) * cos(latitude), cos(angle) - sin(latitude) * sin(endLatitude))
    var longitude = endLongitude * 180 / .pi
    while longitude > 180 { longitude -= 360 }
    while longitude < -180 { longitude += 360 }
    return Coordinate(latitude: min(90, max(-90, endLatitude * 180 / .pi)), longitude: longitude)
}

@Suite("Region monitor index", .timeLimit(.minutes(5)))
struct LocationRegionIndexTests {
    /// A transition in a line, for a readable difference.
    static func summary(_ transition: RegionTransition) -> String {
        "\(transition.owner)/\(transition.region.identifier) \(transition.from)->\(transition.to) since "
            + "\(transition.qualifiedAt)"
    }

    /// Where random regions and fixes are drawn.
    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var seed: UInt64
        var regions: Int
        /// A random centre.
        var center: @Sendable (inout SeededGenerator) -> Coordinate
        /// A random radius.
        var radius: @Sendable (inout SeededGenerator) -> Double
        var testDescription: String { name }
    }

    static let scenarios = [
        Scenario(
            name: "a city: 3000 regions of 1 m to 3 km (and a few of 100 km) over 20 km",
            seed: 1, regions: 3_000,
            center: { Geo.offset(Geo.ljubljana, east: jitter(10_000, using: &$0), north: jitter(10_000, using: &$0)) },
            radius: { random in
                Int.random(in: 0..<100, using: &random) == 0
                    ? Double.random(in: 3_000...100_000, using: &random)
                    : exp(Double.random(in: 0...log(3_000), using: &random))
            }
        ),
        Scenario(
            name: "the world: 2000 regions of 1 m to 100 km, poles and antimeridian included",
            seed: 2, regions: 2_000,
            center: { random in
                switch Int.random(in: 0..<4, using: &random) {
                case 0:
                    Coordinate(
                        latitude: Double.random(in: 85...90, using: &random) * (Bool.random(using: &random) ? 1 : -1),
                        longitude: Double.random(in: -180...180, using: &random))
                case 1:
                    Coordinate(
                        latitude: Double.random(in: -80...80, using: &random),
                        longitude: Double.random(in: 179...180, using: &random) * (Bool.random(using: &random) ? 1 : -1)
                    )
                default:
                    Coordinate(
                        latitude: Double.random(in: -90...90, using: &random),
                        longitude: Double.random(in: -180...180, using: &random))
                }
            },
            radius: { exp(Double.random(in: 0...log(100_000), using: &$0)) }
        ),
    ]

    @Test("the index gives the same transitions and states as classifying every region", arguments: scenarios)
    func equivalence(scenario: Scenario) throws {
        var random = SeededGenerator(seed: scenario.seed)
        let configuration = RegionMonitor.Configuration(dwell: 10)
        var monitor = RegionMonitor(configuration)
        var reference = ReferenceRegionMonitor(configuration: configuration)
        let owners = ["si.a", "si.b", "si.c", "si.d"].map(RegionOwner.app)
        let states: [RegionState] = [.unknown, .unknown, .inside, .outside]
        var added: [(identifier: String, owner: RegionOwner, region: CircularRegion)] = []
        var serial = 0

        func addRandom() throws {
            serial += 1
            let owner = owners.randomElement(using: &random)!
            // Now and then the same identifier again, which replaces.
            let identifier =
                !added.isEmpty && Int.random(in: 0..<10, using: &random) == 0
                ? added.randomElement(using: &random)!.identifier : "r\(serial)"
            let region = CircularRegion(
                identifier: identifier, center: scenario.center(&random), radius: scenario.radius(&random))
            let state = states.randomElement(using: &random)!
            try monitor.add(region, owner: owner, state: state)
            reference.add(region, owner: owner, state: state)
            added.append((identifier, owner, region))
        }

        for _ in 0..<scenario.regions { try addRandom() }

        var time = 1_000.0
        var here = scenario.center(&random)
        var transitions = 0
        for step in 0..<4_000 {
            // Mostly a walk, often right at some region's boundary, sometimes anywhere.
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                here = destination(
                    here, distance: Double.random(in: 0...60, using: &random),
                    bearing: Double.random(in: 0..<360, using: &random))
            case 4..<9:
                let target = added.randomElement(using: &random)!.region
                here = destination(
                    target.center, distance: max(0, target.radius + jitter(150, using: &random)),
                    bearing: Double.random(in: 0..<360, using: &random))
            default:
                here = scenario.center(&random)
            }
            time += Int.random(in: 0..<100, using: &random) == 0 ? -50 : Double.random(in: 0.5...8, using: &random)
            let accuracy: Double? =
                Int.random(in: 0..<10, using: &random) == 0 ? nil : Double.random(in: 0...120, using: &random)
            let location = fix(here, at: time, accuracy: accuracy)

            let found = monitor.offer(location)
            let expected = reference.offer(location)
            #expect(found.count == Set(found).count)
            #expect(Set(found.map(Self.summary)) == Set(expected.map(Self.summary)), "step \(step) at \(here)")
            #expect(Set(found) == expected)
            transitions += expected.count

            // Regions come and go while fixes flow.
            if step % 100 == 99 {
                for _ in 0..<20 {
                    let index = Int.random(in: 0..<added.count, using: &random)
                    let gone = added.remove(at: index)
                    monitor.remove(gone.identifier, owner: gone.owner)
                    reference.remove(gone.identifier, owner: gone.owner)
                }
                for _ in 0..<20 { try addRandom() }
            }
        }
        #expect(monitor.count == reference.entries.count)
        for entry in reference.entries {
            #expect(monitor.state(of: entry.region.identifier, owner: entry.owner) == entry.state)
        }
        // The test means something only if many regions changed state along the way.
        #expect(transitions > 1_000)
    }
}
