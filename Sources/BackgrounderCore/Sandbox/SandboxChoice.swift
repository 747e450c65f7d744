/// Whether apps are sandboxed (`--sandbox`).
public enum SandboxChoice: String, Sendable, CaseIterable {
    /// The strongest sandbox the system offers (Landlock, a uid per app under root,
    /// no_new_privs), saying in the log and `bgctl status` what is in force.
    case auto
    /// None: apps run as the daemon's uid with its file-system access; for comparison
    /// benchmarks and debugging.
    case off
}
