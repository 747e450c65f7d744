/// What a person typed where a bundle identifier is expected, matched against the loaded
/// bundles: the full identifier, a unique identifier suffix (`hello`, `samples.hello`), or a
/// bundle's name in any case (`Hello`).
public enum BundleReference: Sendable, Hashable {
    /// It names exactly one bundle.
    case resolved(String)
    /// It matches several: the person must say which.
    case ambiguous([String])
    /// It matches none; the nearest identifier or name, when one is close.
    case unknown(suggestion: String?)

    /// A loaded bundle, as far as matching goes.
    public struct Candidate: Sendable, Hashable {
        public var identifier: String
        public var name: String

        /// Creates a candidate.
        public init(identifier: String, name: String) {
            self.identifier = identifier
            self.name = name
        }
    }

    /// Matches `typed` against `candidates`.
    public static func resolve(_ typed: String, among candidates: [Candidate]) -> BundleReference {
        if candidates.contains(where: { $0.identifier == typed }) { return .resolved(typed) }
        let lowered = typed.lowercased()
        let matches = Set(
            candidates.filter { candidate in
                let identifier = candidate.identifier.lowercased()
                return identifier.hasSuffix("." + lowered) || identifier == lowered
                    || candidate.name.lowercased() == lowered
            }.map(\.identifier)
        ).sorted()
        switch matches.count {
        case 1: return .resolved(matches[0])
        case 0: return .unknown(suggestion: nearest(lowered, among: candidates))
        default: return .ambiguous(matches)
        }
    }

    /// The identifier whose identifier, last component or name is within a few edits of
    /// `typed` (a third of its length, at least 2), the closest first.
    private static func nearest(_ typed: String, among candidates: [Candidate]) -> String? {
        let limit = NearMiss.limit(for: typed)
        let scored = candidates.map { candidate -> (String, Int) in
            let forms = [
                candidate.identifier.lowercased(), candidate.name.lowercased(),
                String(candidate.identifier.lowercased().split(separator: ".").last ?? ""),
            ]
            return (candidate.identifier, forms.map { NearMiss.editDistance(typed, $0) }.min() ?? .max)
        }
        return scored.filter { $0.1 <= limit }.min { $0.1 == $1.1 ? $0.0 < $1.0 : $0.1 < $1.1 }?.0
    }
}
