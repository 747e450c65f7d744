/// The wire protocol's version. A client whose major version differs is told so with an
/// `ERROR` of code `versionMismatch`; minor versions only add classes and fields.
public enum ProtocolVersion {
    /// Incremented on incompatible changes.
    public static let major = 1
    /// Incremented when classes or fields are added.
    public static let minor = 13
}

/// Sizes the protocol promises, documented in docs/PROTOCOL.md.
public enum WireLimits {
    /// The longest line the daemon reads, newline excluded. A longer line is discarded
    /// up to its newline and answered with an `ERROR` of code `lineTooLong`.
    public static let maximumLineLength = 64 * 1024
}
