/// Why a process an earlier run recorded cannot be taken over: the app is treated as
/// terminated by the system.
package enum AdoptionRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine rebooted since (or its boot id cannot be read).
    case rebooted
    /// The pid names no process, or a later one (its start time differs).
    case processGone(Int32)
    /// The process left its container (the cgroup is gone, or it is not in it).
    case containerGone(String)
    /// Its output pipe is gone, so nothing could drain it.
    case outputGone(String)

    package var description: String {
        switch self {
        case .rebooted: "the machine rebooted since"
        case .processGone(let pid): "pid \(pid) is gone or now names another process"
        case .containerGone(let place): "it is no longer in its container (\(place))"
        case .outputGone(let path): "its output pipe \(path) is gone"
        }
    }
}
