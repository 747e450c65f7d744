import BackgrounderCore
import BackgrounderTestSupport
import Testing

@Suite("Region monitoring", .timeLimit(.minutes(5)))
struct LocationRegionMonitorTests {
    private let home = CircularRegion(identifier: "home", center: Geo.ljubljana, radius: 100)
    private let owner = RegionOwner.app("si.example.app")

    /// A monitor watching ``home`` from `state`.
    private func monitor(_ state: RegionState = .unknown, _ configuration: RegionMonitor.Configuration = .init())
        -> RegionMonitor
    {
        var monitor = RegionMonitor(configuration)
        try! monitor.add(home, owner: owner, state: state)
        return monitor
    }

    /// A fix `north` metres from the centre of ``home``.
    private func at(_ north: Double, _ time: Double, accuracy: Double? = 5) -> Location {
        fix(Geo.offset(Geo.ljubljana, north: north), at: time, accuracy: accuracy)
    }

    private func offer(_ fixes: [Location], to monitor: inout RegionMonitor) -> [RegionTransition] {
        fixes.flatMap { monitor.offer($0) }
    }

    // MARK: Transitions

    @Test("walking through: placed outside, then enter and exit after 20 s of fix time each")
    func walkThrough() throws {
        var monitor = monitor()
        let placed = offer([at(300, 0), at(300, 1)], to: &monitor)
        let placement = try #require(placed.only)
        #expect(placement.from == .unknown && placement.to == .outside)
        #expect(placement.notification == nil)  // the initial state is not notified
        #expect(placement.qualifiedAt == 0 && placement.location.timestamp == 1)

        // South at 1 m/s from 300 m north to 300 m south; the band is 10 m each side (5 m + 5 m accuracy).
        let walk = (2...602).map { at(300.5 - Double($0 - 2), Double($0)) }
        let transitions = offer(walk, to: &monitor)
        #expect(transitions.map(\.notification) == [.enter, .exit])
        let enter = transitions[0]
        let exit = transitions[1]
        // Inside from 89.5 m (t = 213), confirmed 20 s later; outside from 110.5 m beyond (t = 413).
        #expect(enter.qualifiedAt == 213 && enter.location.timestamp == 233)
        #expect(exit.qualifiedAt == 413 && exit.location.timestamp == 433)
        for transition in transitions {
            #expect(transition.location.timestamp - transition.qualifiedAt >= monitor.configuration.dwell)
            #expect(transition.owner == owner && transition.region == home)
        }
        #expect(monitor.state(of: "home", owner: owner) == .outside)
    }

    @Test("dwell is fix time: many fixes within 5 s do not confirm, two 30 s apart do")
    func dwellInFixTime() throws {
        var quick = monitor(.outside)
        #expect(offer((0...10).map { at(0, 100 + Double($0) / 2) }, to: &quick).isEmpty)
        let entered = try #require(quick.offer(at(0, 120)).only)
        #expect(entered.notification == .enter && entered.qualifiedAt == 100)

        var slow = monitor(.outside)
        #expect(slow.offer(at(0, 0)).isEmpty)
        #expect(slow.offer(at(0, 30)).only?.notification == .enter)
    }

    @Test("agreement: a single fix never confirms, even with no dwell and from unknown")
    func agreement() {
        var monitor = monitor(.unknown, .init(dwell: 0))
        #expect(monitor.offer(at(0, 0)).isEmpty)
        #expect(monitor.offer(at(30, 1)).only?.to == .inside)
        #expect(monitor.offer(at(500, 2)).isEmpty)
        #expect(monitor.offer(at(0, 3)).isEmpty)  // back inside: the exit candidate is cancelled
        #expect(monitor.offer(at(500, 4)).isEmpty)
        #expect(monitor.offer(at(500, 5)).only?.notification == .exit)
    }

    @Test("notifyOnEntry and notifyOnExit choose what the app hears; the state changes anyway")
    func notifyFlags() {
        var monitor = RegionMonitor()
        let quiet = CircularRegion(
            identifier: "quiet", center: Geo.ljubljana, radius: 100, notifyOnEntry: false, notifyOnExit: false)
        try! monitor.add(quiet, owner: owner, state: .outside)
        let transitions = offer(
            (0...60).map { at(0, Double($0)) } + (61...120).map { at(500, Double($0)) }, to: &monitor)
        #expect(transitions.map(\.to) == [.inside, .outside])
        #expect(transitions.allSatisfy { $0.notification == nil })
    }

    // MARK: Hysteresis

    @Test(
        "no flapping for a receiver jittering a few metres from the boundary, less sure than that",
        arguments: [(103.0, 10.0), (97, 10), (103, nil), (98, 8)] as [(Double, Double?)]
    )
    func noFlapping(distance: Double, accuracy: Double?) {
        for start in [RegionState.unknown, .inside, .outside] {
            var monitor = monitor(start)
            var random = SeededGenerator(seed: 11)
            var transitions: [RegionTransition] = []
            for second in 0..<3_600 {
                let here = Geo.offset(
                    Geo.ljubljana, distance: distance + jitter(4, using: &random),
                    bearing: 30 + jitter(1, using: &random))
                transitions += monitor.offer(fix(here, at: Double(second), accuracy: accuracy))
            }
            #expect(transitions.isEmpty, "from \(start)")
            #expect(monitor.state(of: "home", owner: owner) == start)
        }
    }

    @Test("a single wild fix, or a short burst of them, causes no false exit")
    func wildFix() {
        var monitor = monitor(.inside)
        var transitions = offer((0..<100).map { at(10, Double($0)) }, to: &monitor)
        transitions += monitor.offer(fix(Geo.offset(Geo.ljubljana, east: 5_000), at: 100, accuracy: 3))
        transitions += offer((101..<200).map { at(10, Double($0)) }, to: &monitor)
        // Agreement is met but the dwell is not: 10 s of a wrong position.
        transitions += offer(
            (200..<210).map { fix(Geo.offset(Geo.ljubljana, east: 5_000), at: Double($0)) }, to: &monitor)
        transitions += offer((210..<300).map { at(10, Double($0)) }, to: &monitor)
        #expect(transitions.isEmpty)
        #expect(monitor.state(of: "home", owner: owner) == .inside)
    }

    @Test("inaccurate and unusable fixes change nothing")
    func ignored() {
        var monitor = monitor(.inside)
        let far = Geo.offset(Geo.ljubljana, east: 5_000)
        for second in 0..<100 {
            #expect(monitor.offer(fix(far, at: Double(second), accuracy: 150)).isEmpty)
            #expect(monitor.offer(fix(far, at: .nan)).isEmpty)
            #expect(monitor.offer(fix(Coordinate(latitude: 0, longitude: 200), at: Double(second))).isEmpty)
        }
        #expect(monitor.state(of: "home", owner: owner) == .inside)
    }

    @Test("a state restored from storage is not entered again")
    func restored() {
        var monitor = monitor(.inside)
        #expect(offer((0..<120).map { at(20, Double($0)) }, to: &monitor).isEmpty)
        let transitions = offer((120..<200).map { at(400, Double($0)) }, to: &monitor)
        #expect(transitions.map(\.notification) == [.exit])
    }

    // MARK: requestState

    @Test("classify: inside, outside, or unknown in the band and for a fix too inaccurate")
    func classify() {
        let monitor = RegionMonitor()
        // Accuracy 5 m: band from 90 m to 110 m.
        #expect(monitor.classify(home, at: at(0, 0)) == .inside)
        #expect(monitor.classify(home, at: at(89.9, 0)) == .inside)
        #expect(monitor.classify(home, at: at(90.1, 0)) == .unknown)
        #expect(monitor.classify(home, at: at(100, 0)) == .unknown)
        #expect(monitor.classify(home, at: at(109.9, 0)) == .unknown)
        #expect(monitor.classify(home, at: at(110.1, 0)) == .outside)
        #expect(monitor.classify(home, at: at(5_000, 0)) == .outside)
        // No estimate: 10 m assumed, so the band is 15 m.
        #expect(monitor.classify(home, at: at(84.9, 0, accuracy: nil)) == .inside)
        #expect(monitor.classify(home, at: at(85.1, 0, accuracy: nil)) == .unknown)
        // Too inaccurate, or unusable: no opinion.
        #expect(monitor.classify(home, at: at(0, 0, accuracy: 100.1)) == .unknown)
        #expect(monitor.classify(home, at: at(0, .infinity)) == .unknown)
    }

    @Test("the band reaches at most half the radius inward, so a small region can still be entered")
    func smallRegion() {
        let monitor = RegionMonitor()
        let small = CircularRegion(identifier: "desk", center: Geo.ljubljana, radius: 20)
        // Accuracy 50 m: 55 m of band outward, but only 10 m inward.
        #expect(monitor.classify(small, at: at(9.9, 0, accuracy: 50)) == .inside)
        #expect(monitor.classify(small, at: at(10.1, 0, accuracy: 50)) == .unknown)
        #expect(monitor.classify(small, at: at(74.9, 0, accuracy: 50)) == .unknown)
        #expect(monitor.classify(small, at: at(75.1, 0, accuracy: 50)) == .outside)
    }

    // MARK: Regions

    @Test(
        "regions are validated, and the error names the region and the field",
        arguments: [
            ("home", 46.0, 14.5, -3.0, "region 'home': radius must be between 1 and 100000 m, not -3"),
            ("home", 46, 14.5, 0.5, "region 'home': radius must be between 1 and 100000 m, not 0.5"),
            ("home", 46, 14.5, 100_001, "region 'home': radius must be between 1 and 100000 m, not 100001"),
            ("home", 46, 14.5, .nan, "region 'home': radius must be between 1 and 100000 m, not nan"),
            ("home", 46, 14.5, .infinity, "region 'home': radius must be between 1 and 100000 m, not inf"),
            (
                "work", 91, 14.5, 100,
                "region 'work': center must have latitude in -90...90 and longitude in -180...180, not 91, 14.5"
            ),
            (
                "work", 46, -180.5, 100,
                "region 'work': center must have latitude in -90...90 and longitude in -180...180, not 46, -180.5"
            ),
            ("", 46, 14.5, 100, "region '': identifier must not be empty"),
            (
                String(repeating: "č", count: 129), 46, 14.5, 100,
                "region '\(String(repeating: "č", count: 64))…': identifier must be at most 256 UTF-8 bytes, not 258"
            ),
        ] as [(String, Double, Double, Double, String)]
    )
    func validation(identifier: String, latitude: Double, longitude: Double, radius: Double, message: String) {
        var monitor = RegionMonitor()
        let region = CircularRegion(
            identifier: identifier, center: Coordinate(latitude: latitude, longitude: longitude), radius: radius)
        let error = #expect(throws: RegionError.self) {
            try monitor.add(region, owner: owner)
        }
        #expect(error?.description == message)
        #expect(monitor.count == 0)
    }

    @Test("the limits themselves are accepted, and a refused region leaves its predecessor alone")
    func limits() throws {
        var monitor = RegionMonitor(.init(maximumRadius: 500))
        try monitor.add(
            .init(identifier: String(repeating: "č", count: 128), center: Geo.ljubljana, radius: 1), owner: owner)
        try monitor.add(home, owner: owner, state: .inside)
        let tooBig = CircularRegion(identifier: "home", center: Geo.ljubljana, radius: 501)
        let error = #expect(throws: RegionError.self) {
            try monitor.add(tooBig, owner: owner)
        }
        #expect(error?.description == "region 'home': radius must be between 1 and 500 m, not 501")
        #expect(monitor.regions(owner: owner).first == home)
        #expect(monitor.state(of: "home", owner: owner) == .inside)
    }

    @Test("adding a region again replaces it, with the state given")
    func replace() throws {
        var monitor = monitor(.inside)
        let bigger = CircularRegion(identifier: "home", center: Geo.offset(Geo.ljubljana, east: 3_000), radius: 200)
        try monitor.add(bigger, owner: owner)
        #expect(monitor.count == 1 && monitor.count(owner: owner) == 1)
        #expect(monitor.regions(owner: owner) == [bigger])
        #expect(monitor.state(of: "home", owner: owner) == .unknown)
        // The old circle is gone from the index: fixes there place the new one outside.
        let transitions = offer([at(0, 0), at(0, 1)], to: &monitor)
        #expect(transitions.only?.region == bigger)
        #expect(transitions.only?.to == .outside)
    }

    @Test("many owners: the same identifiers, counted, listed and removed per owner")
    func manyOwners() throws {
        var monitor = RegionMonitor()
        let owners = (0..<50).map { RegionOwner.app(BundleID("si.example.app\($0)")) }
        for (index, owner) in owners.enumerated() {
            try monitor.add(home, owner: owner, state: index.isMultiple(of: 2) ? .outside : .unknown)
            let work = Geo.offset(Geo.ljubljana, east: 1_000 + Double(index) * 10)
            try monitor.add(.init(identifier: "work", center: work, radius: 50), owner: owner)
            try monitor.add(.init(identifier: "a-gym", center: work, radius: 50), owner: owner)
        }
        #expect(monitor.count == 150)
        #expect(monitor.count(owner: .app("si.example.app7")) == 3)
        #expect(monitor.regions(owner: .app("si.example.app7")).map(\.identifier) == ["a-gym", "home", "work"])
        #expect(monitor.regions(owner: .app("nobody")).isEmpty && monitor.count(owner: .app("nobody")) == 0)

        let transitions = offer((0..<30).map { at(0, Double($0)) }, to: &monitor)
        // Every owner's home is entered (from outside: notified) or placed (from unknown: not);
        // the 25 unknown work and gym regions of each parity are placed outside.
        let homes = transitions.filter { $0.region.identifier == "home" }
        #expect(Set(homes.map(\.owner)) == Set(owners))
        #expect(homes.filter { $0.notification == .enter }.count == 25)
        #expect(transitions.filter { $0.region.identifier != "home" }.allSatisfy { $0.to == .outside })
        #expect(transitions.count == 150)

        #expect(evaluated(monitor.remove("home", owner: .app("si.example.app3"))))
        #expect(evaluated(!monitor.remove("home", owner: .app("si.example.app3"))))
        #expect(monitor.state(of: "home", owner: .app("si.example.app3")) == nil)
        #expect(monitor.state(of: "home", owner: .app("si.example.app4")) == .inside)
        monitor.removeAll(owner: .app("si.example.app4"))
        #expect(monitor.count == 146 && monitor.count(owner: .app("si.example.app4")) == 0)
        // The others still leave.
        let exits = offer((30..<60).map { at(1_000, Double($0)) }, to: &monitor)
        #expect(exits.count == 48 && exits.allSatisfy { $0.notification == .exit })
    }

    @Test("a bulk of unknown regions far away is placed outside once, then costs nothing")
    func bulkUnknown() throws {
        var monitor = RegionMonitor()
        var random = SeededGenerator(seed: 12)
        for index in 0..<20_000 {
            let center = Coordinate(
                latitude: Double.random(in: 47...55, using: &random),
                longitude: Double.random(in: 0...30, using: &random))
            try monitor.add(
                .init(identifier: "r\(index)", center: center, radius: 300), owner: .app(BundleID("app\(index % 7)")))
        }
        #expect(monitor.offer(at(0, 0)).isEmpty)
        let placed = monitor.offer(at(0, 1))
        #expect(placed.count == 20_000)
        #expect(placed.allSatisfy { $0.from == .unknown && $0.to == .outside && $0.notification == nil })
        #expect(monitor.offer(at(0, 2)).isEmpty)
        #expect(monitor.state(of: "r123", owner: .app("app4")) == .outside)
    }

    @Test(
        "regions across the antimeridian, near a pole and very large",
        arguments: [
            // center, radius, a point inside, a point outside
            (
                Coordinate(latitude: 0, longitude: 179.9995), 200.0, Coordinate(latitude: 0, longitude: -179.9995),
                Coordinate(latitude: 0, longitude: -179.99)
            ),
            (
                Coordinate(latitude: -89.9, longitude: 0), 50_000, Coordinate(latitude: -89.9, longitude: 180),
                Coordinate(latitude: -89.3, longitude: 90)
            ),
            (
                Coordinate(latitude: 90, longitude: 0), 1_000, Coordinate(latitude: 89.995, longitude: -120),
                Coordinate(latitude: 89.98, longitude: 60)
            ),
            (
                Geo.ljubljana, 100_000, Coordinate(latitude: 46.8, longitude: 14.5),
                Coordinate(latitude: 47.2, longitude: 14.5)
            ),
            (
                Coordinate(latitude: 78.2, longitude: 15.6), 30_000, Coordinate(latitude: 78.3, longitude: 16.2),
                Coordinate(latitude: 78.2, longitude: 18.5)
            ),
        ] as [(Coordinate, Double, Coordinate, Coordinate)]
    )
    func geometry(center: Coordinate, radius: Double, inside: Coordinate, outside: Coordinate) throws {
        let region = CircularRegion(identifier: "r", center: center, radius: radius)
        #expect(region.contains(inside) && !region.contains(outside))
        var monitor = RegionMonitor()
        try monitor.add(region, owner: owner, state: .outside)
        // Another region next to it, in case both share index cells.
        try monitor.add(.init(identifier: "s", center: outside, radius: 10), owner: owner, state: .outside)
        let entered = (0...30).flatMap { monitor.offer(fix(inside, at: Double($0))) }
        #expect(entered.map(\.region.identifier) == ["r"])
        let left = (31...61).flatMap { monitor.offer(fix(outside, at: Double($0))) }
        #expect(left.map(\.region.identifier).sorted() == ["r", "s"])
        #expect(Set(left.compactMap(\.notification)) == [.exit, .enter])
    }
}
