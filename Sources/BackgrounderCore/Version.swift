/// The release of Backgrounder these modules belong to, reported by `bgctl status`
/// and in the protocol's greeting.
public enum BackgrounderVersion {
    /// The release string, semantic-versioning style.
    public static let release = "0.1.0"
}
