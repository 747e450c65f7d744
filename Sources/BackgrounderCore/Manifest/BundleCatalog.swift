/// The outcome of scanning bundle directories: what loaded and what was refused, with
/// identifiers kept unique.
public struct BundleCatalog: Sendable, Hashable {
    /// Bundles that passed validation, keyed by bundle identifier.
    public private(set) var loaded: [String: ValidatedBundle] = [:]
    /// Bundles that were refused, in scan order.
    public private(set) var refused: [BundleProblem] = []

    /// Creates an empty catalog.
    public init() {}

    /// Builds a catalog from validation outcomes in scan order.
    /// - Parameter outcomes: One result per bundle directory, in the order they were found.
    public init(_ outcomes: [Result<ValidatedBundle, BundleProblem>]) {
        for outcome in outcomes {
            switch outcome {
            case .success(let bundle): add(bundle)
            case .failure(let problem): refused.append(problem)
            }
        }
    }

    /// Adds a validated bundle unless its identifier is taken, in which case the newcomer
    /// is refused and both paths are named.
    /// - Parameter bundle: The bundle to add.
    public mutating func add(_ bundle: ValidatedBundle) {
        let identifier = bundle.manifest.bundleIdentifier
        if let first = loaded[identifier] {
            refused.append(
                BundleProblem(
                    path: bundle.path,
                    key: InfoPlistKey.bundleIdentifier.rawValue,
                    reason: "duplicate identifier \(identifier), already loaded from \(first.path)"
                )
            )
        } else {
            loaded[identifier] = bundle
        }
    }

    /// Loaded bundles sorted by identifier, for stable listings.
    public var sortedLoaded: [ValidatedBundle] {
        loaded.values.sorted { $0.manifest.bundleIdentifier < $1.manifest.bundleIdentifier }
    }
}
