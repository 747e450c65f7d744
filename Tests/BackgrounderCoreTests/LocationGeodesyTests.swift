import BackgrounderTestSupport
import Testing

@testable import BackgrounderCore

@Suite("Geodesy", .timeLimit(.minutes(5)))
struct LocationGeodesyTests {
    @Test("one degree of latitude is 111,195 m anywhere")
    func oneDegreeOfLatitude() {
        let expected = 111_195.08  // 6_371_008.8 m × π / 180
        #expect(
            abs(Coordinate(latitude: 0, longitude: 0).distance(to: .init(latitude: 1, longitude: 0)) - expected) < 0.01)
        #expect(
            abs(Coordinate(latitude: 46, longitude: 14).distance(to: .init(latitude: 45, longitude: 14)) - expected)
                < 0.01)
        // A degree of longitude shrinks with the cosine of latitude: 55,597 m at 60°.
        #expect(
            abs(Coordinate(latitude: 60, longitude: 0).distance(to: .init(latitude: 60, longitude: 1)) - 55_597.01)
                < 0.01)
    }

    @Test("Bled to Ljubljana is 47.2 km in a straight line")
    func bledToLjubljana() {
        let bledCastle = Coordinate(latitude: 46.3697, longitude: 14.1003)
        let preserenSquare = Coordinate(latitude: 46.0514, longitude: 14.5061)
        let distance = bledCastle.distance(to: preserenSquare)
        // 47,198.67 m by an independent haversine (scripts/make-walks.py's); the WGS 84 geodesic
        // (Vincenty) is 47,248.55 m, which a sphere may miss by at most about 0.5 %.
        #expect(abs(distance - 47_198.67) < 0.01)
        #expect(abs(distance - 47_248.55) / 47_248.55 < 0.005)
        #expect(preserenSquare.distance(to: bledCastle) == distance)
    }

    @Test("the antimeridian and the antipodes")
    func wrapAround() {
        let west = Coordinate(latitude: 0, longitude: 179.5)
        let east = Coordinate(latitude: 0, longitude: -179.5)
        #expect(abs(west.distance(to: east) - 111_195.08) < 0.01)
        let antipode = Coordinate(latitude: 0, longitude: 180).distance(to: .init(latitude: 0, longitude: 0))
        #expect(abs(antipode - 20_015_114.44) < 0.01)
        let poles = Coordinate(latitude: 90, longitude: 0).distance(to: .init(latitude: -90, longitude: 77))
        #expect(abs(poles - 20_015_114.44) < 0.01)
        #expect(Geo.ljubljana.distance(to: Geo.ljubljana) == 0)
    }

    @Test(
        "valid coordinates",
        arguments: [
            (0.0, 0.0, true), (90, 180, true), (-90, -180, true), (46.05, 14.5, true),
            (90.0001, 0, false), (-90.5, 0, false), (0, 180.5, false), (0, -181, false),
            (.nan, 0, false), (0, .nan, false), (.infinity, 0, false), (0, -.infinity, false),
        ] as [(Double, Double, Bool)]
    )
    func validity(latitude: Double, longitude: Double, valid: Bool) {
        #expect(Coordinate(latitude: latitude, longitude: longitude).isValid == valid)
    }

    /// The region monitor decides most fixes from bounds on the haversine; they must never
    /// decide differently from the distance itself, right up to the thresholds.
    @Test("bounded classification agrees with the distance at the thresholds")
    func boundsAgreeWithDistance() {
        var random = SeededGenerator(seed: 7)
        let centres = [
            Geo.ljubljana, Coordinate(latitude: 0, longitude: 179.9999), Coordinate(latitude: 0, longitude: -180),
            Coordinate(latitude: 89.99, longitude: 10), Coordinate(latitude: -89.5, longitude: -170),
            Coordinate(latitude: 70, longitude: -179.99),
        ]
        var decided = 0
        for _ in 0..<20_000 {
            let centre = centres.randomElement(using: &random)!
            let point = Coordinate(
                latitude: min(90, max(-90, centre.latitude + Double.random(in: -0.3...0.3, using: &random))),
                longitude: wrap(centre.longitude + Double.random(in: -0.5...0.5, using: &random))
            )
            let distance = centre.distance(to: point)
            // Thresholds around the true distance, some within a nanometre of it.
            let scale = [1e-12, 1e-9, 1e-6, 1e-3, 1, 100].randomElement(using: &random)!
            let inner = distance + Double.random(in: -scale...scale, using: &random)
            let outer = inner + Double.random(in: 0...scale, using: &random)
            let expected: RegionState = distance <= inner ? .inside : distance >= outer ? .outside : .unknown
            let state = GeoPoint(point).classify(around: GeoPoint(centre), inner: inner, outer: outer)
            #expect(state == expected, "\(point) around \(centre), d \(distance), inner \(inner), outer \(outer)")
            if state != .unknown { decided += 1 }
        }
        #expect(decided > 10_000)
    }

    private func wrap(_ longitude: Double) -> Double {
        longitude > 180 ? longitude - 360 : longitude < -180 ? longitude + 360 : longitude
    }
}
