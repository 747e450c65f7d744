/// The outcome of scanning bundle directories: what loaded and what was refused, with
/// identifiers kept unique.
public struct BundleCatalog: Sendable, Hashable {
    /// Bundles that passed validation, keyed by bundle identifier.
    public private(set) var loaded: [BundleID: ValidatedBundle] = [:]
    /// Bundles that were refused, in scan order.
    public private(set) var refused: [BundleProblem] = []

    /// Creates an empty catalog.
    public init() {}

    /// Builds a catalog from validation outcomes in scan order.
    /// - Parameters:
    ///   - outcomes: One result per bundle directory, in the order they were found.
    ///   - incumbents: The path each identifier was loaded from before. That bundle keeps its
    ///     identifier against a copy dropped into its own directory (or a later one), wherever
    ///     the copy's name sorts; one in an earlier directory still overrides it, as in a
    ///     search path.
    public init(_ outcomes: [Result<ValidatedBundle, BundleProblem>], incumbents: [BundleID: String] = [:]) {
        var directoryRank: [String: Int] = [:]
        for outcome in outcomes {
            let path =
                switch outcome {
                case .success(let bundle): bundle.path
                case .failure(let problem): problem.path
                }
            let directory = Self.directory(of: path)
            if directoryRank[directory] == nil { directoryRank[directory] = directoryRank.count }
        }
        let rank = { (path: String) in directoryRank[Self.directory(of: path)] ?? Int.max }
        for case .success(let bundle) in outcomes where incumbents[bundle.manifest.bundleIdentifier] == bundle.path {
            let overridden = outcomes.contains { outcome in
                guard case .success(let other) = outcome else { return false }
                return other.manifest.bundleIdentifier == bundle.manifest.bundleIdentifier
                    && rank(other.path) < rank(bundle.path)
            }
            if !overridden { add(bundle) }
        }
        for outcome in outcomes {
            switch outcome {
            case .success(let bundle):
                if loaded[bundle.manifest.bundleIdentifier]?.path != bundle.path { add(bundle) }
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

    /// The loaded bundles that claim an identifier last loaded from another bundle that is
    /// gone: the removed app's data and grants are not theirs. The daemon retires them (keeps
    /// them aside for `bgctl adopt-bundle`) and the claimant starts fresh. An override in an
    /// earlier directory of the search path, with the incumbent still there, is a person's
    /// choice and is no claim.
    /// - Parameters:
    ///   - recorded: The path each identifier was last loaded from (the daemon's store).
    ///   - exists: Whether anything is still at a path.
    /// - Returns: The claims, by identifier.
    public func claimsOnRemovedApps(recorded: [BundleID: String], exists: (String) -> Bool) -> [BundleClaim] {
        sortedLoaded.compactMap { bundle in
            let identifier = bundle.manifest.bundleIdentifier
            guard let previous = recorded[identifier], previous != bundle.path, !exists(previous) else { return nil }
            return BundleClaim(identifier: identifier, claimant: bundle.path, previous: previous)
        }
    }

    /// Holds a claimant back: it is refused, with the reason, until what stops its fresh
    /// start is gone (the removed app's process still running, say).
    public mutating func hold(_ claim: BundleClaim, because reason: String) {
        guard loaded[claim.identifier]?.path == claim.claimant else { return }
        loaded[claim.identifier] = nil
        refused.append(
            BundleProblem(
                path: claim.claimant, key: InfoPlistKey.bundleIdentifier.rawValue,
                reason: "\(claim.identifier) was the app at \(claim.previous), which is gone; \(reason)"))
    }

    /// The directory holding a bundle: its path without the last component.
    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    /// Loaded bundles sorted by identifier, for stable listings.
    public var sortedLoaded: [ValidatedBundle] {
        loaded.values.sorted { $0.manifest.bundleIdentifier < $1.manifest.bundleIdentifier }
    }
}

/// A bundle that claims the identifier of an app whose bundle is gone.
public struct BundleClaim: Sendable, Hashable {
    /// The identifier both claim.
    public var identifier: BundleID
    /// The claimant's path.
    public var claimant: String
    /// Where the removed app was loaded from.
    public var previous: String

    public init(identifier: BundleID, claimant: String, previous: String) {
        self.identifier = identifier
        self.claimant = claimant
        self.previous = previous
    }
}
