import ArgumentParser
import BackgrounderCore
import Foundation

/// The daemon's per-fix location work, single-threaded: one significant-change filter and one
/// region monitor holding N regions, fed a seeded synthetic walk, beside a brute-force scan of
/// the same regions (every region classified on every fix) as the baseline.
struct Filters: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filters",
        abstract: "Location filters: ns per fix with 20 to 100,000 monitored regions, beside a brute-force scan."
    )

    @Option(help: "Region counts, comma separated.") var regions = "20,1000,10000,100000"
    @Option(help: "Measured fixes per region count.") var fixes = 1_000_000
    @Option(help: "Warm-up fixes per region count, not measured.") var warmup = 20_000
    @Option(help: "Seed of the walk and the regions.") var seed: UInt64 = 2025
    @Option(help: "Fixes the brute-force baseline is measured over, at most; 0 skips it.")
    var bruteForceFixes = 20_000
    @Option(help: "Side in km of the square box the regions and the walk are in.") var box = 50.0
    @Option(help: "Regions per km²: scales the box with the region count instead (0: use --box).")
    var density = 0.0

    /// The middle of the box: Ljubljana.
    static let center = Coordinate(latitude: 46.05, longitude: 14.50)
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    func run() throws {
        let sizes = regions.split(separator: ",").compactMap { Int($0) }
        print(
            "Location filters: \(fixes) fixes at 1 Hz after \(warmup) warm-up, in a "
                + (density > 0 ? "box holding \(density) regions per km²" : "\(box) km box"))
        print(
            "regions   box km   add ms   ns/fix     fixes/s  transitions  events |"
                + " brute ns/fix     ratio  inside/fix")
        var smallest: (size: Int, perFix: Double)?
        for size in sizes {
            let side = density > 0 ? (Double(size) / density).squareRoot() : box
            let halfSide = side * 500
            var random = Xorshift(seed: seed)
            let walk = Self.walk(count: warmup + fixes, halfSide: halfSide, random: &random)
            var regionRandom = Xorshift(seed: seed &+ UInt64(size))
            let regionList = (0..<size).map { Self.region($0, halfSide: halfSide, random: &regionRandom) }
            var monitor = RegionMonitor()
            let addStart = ContinuousClock.now
            for (index, region) in regionList.enumerated() {
                try monitor.add(region, owner: .app(BundleID("bench.app\(index % 20)")))
            }
            let addTime = ContinuousClock.now - addStart
            var significant = SignificantChangeFilter()
            var transitions = 0
            var events = 0
            for fix in walk[..<warmup] {
                transitions += monitor.offer(fix).count
                if significant.offer(fix) { events += 1 }
            }
            transitions = 0
            events = 0
            let start = ContinuousClock.now
            for fix in walk[warmup...] {
                transitions += monitor.offer(fix).count
                if significant.offer(fix) { events += 1 }
            }
            let perFix = (ContinuousClock.now - start).seconds * 1e9 / Double(fixes)
            var line = String(
                format: "%7d  %7.1f  %7.1f  %7.1f  %10.0f  %11d  %6d |", size, side, addTime.seconds * 1e3, perFix,
                1e9 / perFix, transitions, events)
            if let brute = bruteForce(regionList, monitor.configuration, walk[warmup...]) {
                line += String(format: " %11.0f  %7.0fx  %9.2f", brute.perFix, brute.perFix / perFix, brute.inside)
            }
            print(line)
            // Flat is the goal: each size against the smallest, measured in the same run.
            smallest = smallest ?? (size, perFix)
            if let smallest, size != smallest.size {
                BenchRecord(
                    bench: "filters", measure: "ns per fix, \(size) regions", unit: "ns",
                    baselineName: "\(smallest.size) regions", baseline: smallest.perFix, ours: perFix, goal: 2
                ).append()
            }
        }
    }

    /// ns per fix of classifying every region on every fix, over at most ``bruteForceFixes``
    /// fixes (and fewer for many regions, so it ends within a second or so).
    private func bruteForce(
        _ regions: [CircularRegion],
        _ configuration: RegionMonitor.Configuration,
        _ fixes: ArraySlice<Location>
    ) -> (perFix: Double, inside: Double)? {
        let count = min(bruteForceFixes, max(100, 50_000_000 / max(1, regions.count)), fixes.count)
        guard count > 0 else { return nil }
        let classifier = RegionMonitor(configuration)
        var inside = 0
        let start = ContinuousClock.now
        for fix in fixes.prefix(count) {
            for region in regions where classifier.classify(region, at: fix) == .inside {
                inside += 1
            }
        }
        let perFix = (ContinuousClock.now - start).seconds * 1e9 / Double(count)
        return (perFix, Double(inside) / Double(count))
    }

    /// A region of 50 to 500 m somewhere in the box.
    private static func region(_ index: Int, halfSide: Double, random: inout Xorshift) -> CircularRegion {
        let north = random.uniform(-halfSide, halfSide)
        let east = random.uniform(-halfSide, halfSide)
        return CircularRegion(
            identifier: "region-\(index)",
            center: offset(center, east: east, north: north),
            radius: random.uniform(50, 500)
        )
    }

    /// A walker at about 1.4 m/s who changes direction now and then and turns back at the
    /// edge of the box, fixed once a second with a few metres of noise.
    private static func walk(count: Int, halfSide: Double, random: inout Xorshift) -> [Location] {
        var fixes: [Location] = []
        fixes.reserveCapacity(count)
        var east = 0.0
        var north = 0.0
        var heading = random.uniform(0, 2 * .pi)
        for second in 0..<count {
            heading += random.uniform(-0.05, 0.05)
            if abs(east) > halfSide * 0.8 || abs(north) > halfSide * 0.8 {
                // Head back toward the middle.
                heading = atan2(-east, -north) + random.uniform(-0.5, 0.5)
            }
            let speed = random.uniform(1.2, 1.6)
            east += speed * sin(heading)
            north += speed * cos(heading)
            let noise = 3.0
            let position = offset(
                center,
                east: east + random.uniform(-noise, noise),
                north: north + random.uniform(-noise, noise)
            )
            fixes.append(
                Location(
                    coordinate: position,
                    horizontalAccuracy: random.uniform(4, 12),
                    timestamp: 1_750_000_000 + Double(second),
                    fixMode: .threeDimensional
                ))
        }
        return fixes
    }

    private static func offset(_ origin: Coordinate, east: Double, north: Double) -> Coordinate {
        Coordinate(
            latitude: origin.latitude + north / metresPerDegree,
            longitude: origin.longitude + east / (metresPerDegree * cos(origin.latitude * .pi / 180))
        )
    }
}

/// xorshift64, so the walk and the regions are the same on every run.
private struct Xorshift {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
    }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    /// A double in `low..<high`.
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
