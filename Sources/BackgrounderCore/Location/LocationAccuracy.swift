/// CLLocationAccuracy's constants, in metres; negative values mean "as good as possible".
///
/// A GPS receiver has no cheaper mode to switch to, so here they only say which fixes an app
/// wants to hear: ``StandardUpdateFilter`` drops fixes less accurate than the app asked for.
public enum LocationAccuracy {
    /// The best the receiver can do, for turn-by-turn navigation (`kCLLocationAccuracyBestForNavigation`).
    public static let bestForNavigation: Double = -2
    /// The best the receiver can do (`kCLLocationAccuracyBest`).
    public static let best: Double = -1
    /// Within 10 m (`kCLLocationAccuracyNearestTenMeters`).
    public static let nearestTenMeters: Double = 10
    /// Within 100 m (`kCLLocationAccuracyHundredMeters`).
    public static let hundredMeters: Double = 100
    /// Within a kilometre (`kCLLocationAccuracyKilometer`).
    public static let kilometer: Double = 1000
    /// Within three kilometres (`kCLLocationAccuracyThreeKilometers`).
    public static let threeKilometers: Double = 3000
}
