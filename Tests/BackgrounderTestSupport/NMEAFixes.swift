public import BackgrounderCore
import Foundation

extension NMEAFixes {
    /// The fixes of `Tests/Fixtures/gps/NAME`, with their altitudes, read without gpsd: for
    /// tests of what an app makes of a walk, where the daemon's path from gpsd is not tested.
    public static func fixture(_ name: String) throws -> [Location] {
        parse(try String(contentsOfFile: Locations.gpsFixture(name), encoding: .utf8))
    }
}
