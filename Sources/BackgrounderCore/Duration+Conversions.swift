extension Duration {
    /// The duration in seconds, as a `Double` (for display, JSON and C interfaces).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole microseconds, rounded toward zero (for `poll`, PSI and libgps).
    public var wholeMicroseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}
