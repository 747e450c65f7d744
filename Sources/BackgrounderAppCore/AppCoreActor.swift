/// The one executor the app core and every capability run on: the app table, the life cycle
/// and each capability's bookkeeping change only here, so they never disagree, and a
/// capability acts on an app synchronously. Capabilities are classes isolated to it, which is
/// what makes them `Sendable`: the composition and the control socket hold them by type and
/// reach them with `await`.
@globalActor
package actor AppCoreActor {
    /// The one instance.
    package static let shared = AppCoreActor()
}
