#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The spatial index of ``RegionMonitor``: which regions a fix could enter, found in a few
/// dictionary lookups however many regions there are.
///
/// Regions are registered in every cell of a latitude/longitude grid that their circle
/// overlaps, and a fix looks at the regions of its own cell. That is enough: a region known to
/// be outside, with no change pending, can only be moved by a fix inside its circle (by the
/// margin, even); every other region (inside, unknown, or about to change) is on the monitor's
/// attention list, which every fix looks at wherever it is.
///
/// The finest grid has cells of 1/256° (434 m north-south, 300 m east-west at 46° N), about
/// the size of a typical geofence (iOS apps use 100 m to a few km), so a region of a few
/// hundred metres sits in 1 to 20 cells and a fix checks only regions within a few hundred
/// metres of it. A region that would need more than ``maximumCellsPerRegion`` cells goes to the
/// next grid, each 4 times coarser (1/64°, 1/16°, 1/4°, 1°), so a 100 km region costs about 20
/// cells and a fix never checks many regions much farther away than their size. Cells are
/// powers of two of a degree, so a coordinate's cell is an exact scaling. Longitude cells
/// narrow toward the poles; a region touching a pole, or too wide in longitude even for 1°
/// cells, is kept in ``large``, which every fix checks (there are normally none).
struct RegionGrid: Sendable {
    /// Cells per degree of each level, finest first.
    static let cellsPerDegree: [Double] = [256, 64, 16, 4, 1]
    /// The most cells a region is registered in at one level.
    static let maximumCellsPerRegion = 64
    /// The placement of a region kept in ``large``.
    static let largePlacement: Int8 = -1

    /// A region as a cell lists it: enough for a fix to rule it out without touching the
    /// region's own record, so a fix reads one short contiguous list.
    struct Entry: Sendable {
        /// Degrees from the cell's south-west corner to the centre: small numbers, so single
        /// precision keeps them within centimetres of the ground wherever a fix is near enough
        /// for them to matter.
        var north: Float
        var east: Float
        var radius: Float
        /// The region's slot in the monitor.
        var slot: Int32
    }

    /// A fix placed in one cell of one level.
    struct Probe {
        var key: Int64
        /// Degrees from the cell's south-west corner to the fix.
        var north: Double
        var east: Double
        var cosLatitude: Double
        /// The level's ``Level/boundScale``.
        var scale: Double

        /// Whether the fix is certainly farther from the region's centre than the inner edge of
        /// the band (the radius less `margin`, or half the radius), so it cannot start an entry.
        ///
        /// A lower bound of the haversine with no trigonometry (see ``Level/boundScale``; the
        /// centre's cosine of latitude is within the latitude difference of the fix's), ruling
        /// out only with a metre to spare, far more than single precision loses.
        func rulesOut(_ entry: Entry, margin: Double) -> Bool {
            let deltaLatitude = (north - Double(entry.north)) * Earth.radiansPerDegree
            let deltaLongitude = (east - Double(entry.east)) * Earth.radiansPerDegree
            let cosines = cosLatitude * max(0, cosLatitude - abs(deltaLatitude))
            let radius = Double(entry.radius)
            let inner = radius - min(margin, radius / 2) + 1
            return (deltaLatitude * deltaLatitude + cosines * deltaLongitude * deltaLongitude) * scale > inner * inner
        }
    }

    /// One grid.
    struct Level: Sendable {
        let cellsPerDegree: Double
        /// Cells around a circle of latitude; longitude wraps at this.
        let columns: Int64
        /// Regions by cell.
        var cells: [Int64: [Entry]] = [:]
        /// How many regions this level holds, so fixes skip empty levels.
        var regions = 0
        /// R²k², where d² >= R²k²(Δφ² + cos φ₁ cos φ₂ Δλ²) for the fix and any centre listed in
        /// its cell: from the haversine with asin y >= y and sin x >= x(1 - X²/6) for x <= X,
        /// X being half the largest difference possible here (a region spans at most
        /// ``maximumCellsPerRegion`` cells, so a fix in one of them is at most one more away),
        /// less a millionth for rounding.
        let boundScale: Double

        init(cellsPerDegree: Double) {
            self.cellsPerDegree = cellsPerDegree
            columns = Int64(360 * cellsPerDegree)
            let halfSpan = Double(maximumCellsPerRegion + 1) / cellsPerDegree * Earth.radiansPerDegree / 2
            let factor = 1 - halfSpan * halfSpan / 6
            boundScale = Earth.meanRadius * Earth.meanRadius * factor * factor * (1 - 1e-6)
        }

        /// The cell holding a fix, and where in it the fix lies.
        func probe(_ fix: GeoPoint) -> Probe {
            let row = Int64(((fix.latitude + 90) * cellsPerDegree).rounded(.down))
            let column = wrap(Int64(((fix.longitude + 180) * cellsPerDegree).rounded(.down)))
            let corner = self.corner(row: row, column: column)
            return Probe(
                key: row << 32 | column,
                north: fix.latitude - corner.south,
                east: RegionGrid.wrapDegrees(fix.longitude - corner.west),
                cosLatitude: fix.cosLatitude,
                scale: boundScale
            )
        }

        /// The entry of a region in one cell.
        func entry(_ slot: Int32, center: Coordinate, radius: Double, row: Int64, column: Int64) -> (Int64, Entry) {
            let column = wrap(column)
            let corner = self.corner(row: row, column: column)
            let entry = Entry(
                north: Float(center.latitude - corner.south),
                east: Float(RegionGrid.wrapDegrees(center.longitude - corner.west)),
                radius: Float(radius),
                slot: slot
            )
            return (row << 32 | column, entry)
        }

        /// Columns wrap around the antimeridian.
        private func wrap(_ column: Int64) -> Int64 {
            ((column % columns) + columns) % columns
        }

        /// A cell's south-west corner; exact, as cells are powers of two of a degree.
        private func corner(row: Int64, column: Int64) -> (south: Double, west: Double) {
            (Double(row) / cellsPerDegree - 90, Double(column) / cellsPerDegree - 180)
        }
    }

    /// The cells a region is registered in at one level.
    private struct Footprint {
        var level: Int
        var rows: ClosedRange<Int64>
        var columns: ClosedRange<Int64>
    }

    /// The grids, finest first.
    private(set) var levels = cellsPerDegree.map(Level.init(cellsPerDegree:))
    /// Regions checked on every fix.
    private(set) var large: [Int32] = []

    /// Registers a region.
    /// - Parameters:
    ///   - slot: The region's slot in the monitor.
    ///   - center: Its centre.
    ///   - radius: Its radius in metres.
    /// - Returns: Its placement, for ``remove(_:center:radius:placement:)``.
    mutating func insert(_ slot: Int32, center: Coordinate, radius: Double) -> Int8 {
        guard let footprint = Self.footprint(center: center, radius: radius) else {
            large.append(slot)
            return Self.largePlacement
        }
        levels[footprint.level].regions += 1
        for row in footprint.rows {
            for column in footprint.columns {
                let (key, entry) = levels[footprint.level].entry(
                    slot, center: center, radius: radius, row: row, column: column)
                levels[footprint.level].cells[key, default: []].append(entry)
            }
        }
        return Int8(footprint.level)
    }

    /// Unregisters a region, with the arguments it was inserted with.
    mutating func remove(_ slot: Int32, center: Coordinate, radius: Double, placement: Int8) {
        guard placement != Self.largePlacement, let footprint = Self.footprint(center: center, radius: radius) else {
            if let index = large.firstIndex(of: slot) { large.remove(at: index) }
            return
        }
        levels[footprint.level].regions -= 1
        for row in footprint.rows {
            for column in footprint.columns {
                let (key, _) = levels[footprint.level].entry(slot, center: center, radius: 0, row: row, column: column)
                guard var list = levels[footprint.level].cells.removeValue(forKey: key) else { continue }
                if let index = list.firstIndex(where: { $0.slot == slot }) { list.remove(at: index) }
                if !list.isEmpty { levels[footprint.level].cells[key] = list }
            }
        }
    }

    /// The cells of the finest level where the region's circle fits in at most
    /// ``maximumCellsPerRegion``, or `nil` for ``large``.
    private static func footprint(center: Coordinate, radius: Double) -> Footprint? {
        let angle = max(0, radius) / Earth.meanRadius
        // The circle is a spherical cap: its latitudes are the centre's ± the angle.
        let latitudeSpread = widened(angle / Earth.radiansPerDegree)
        let south = center.latitude - latitudeSpread
        let north = center.latitude + latitudeSpread
        guard angle < .pi / 2, south > -90, north < 90 else { return nil }
        // A cap clear of the poles spans asin(sin angle / cos latitude) of longitude each side.
        let sine = sin(angle) / cos(center.latitude * Earth.radiansPerDegree)
        guard sine < 1 else { return nil }
        let longitudeSpread = widened(asin(sine) / Earth.radiansPerDegree)
        for (index, perDegree) in cellsPerDegree.enumerated() {
            let rows = cell(south + 90, perDegree)...cell(north + 90, perDegree)
            let columns =
                cell(
                    center.longitude - longitudeSpread + 180, perDegree)...cell(
                    center.longitude + longitudeSpread + 180, perDegree)
            let columnCount = Int64(columns.count)
            guard columnCount < Int64(360 * perDegree) else { continue }
            if Int64(rows.count) * columnCount <= maximumCellsPerRegion {
                return Footprint(level: index, rows: rows, columns: columns)
            }
        }
        return nil
    }

    private static func cell(_ degrees: Double, _ perDegree: Double) -> Int64 {
        Int64((degrees * perDegree).rounded(.down))
    }

    /// Degrees of longitude brought into -180..<180.
    static func wrapDegrees(_ degrees: Double) -> Double {
        degrees >= 180 ? degrees - 360 : degrees < -180 ? degrees + 360 : degrees
    }

    /// A spread made a little wider than computed, so rounding never leaves a fix's cell out.
    private static func widened(_ degrees: Double) -> Double {
        degrees * (1 + 1e-9) + 1e-9
    }
}
