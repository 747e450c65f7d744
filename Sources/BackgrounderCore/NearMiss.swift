/// "Did you mean ...?": the word a person probably meant when they typed one that does not
/// exist (a subcommand, a bundle's name).
public enum NearMiss {
    /// The candidate within a few edits of `typed` (see ``limit(for:)``), the closest first,
    /// then the first in alphabetical order; `nil` when none is that close.
    public static func nearest(_ typed: String, among candidates: [String]) -> String? {
        let limit = limit(for: typed)
        let typed = typed.lowercased()
        var best: (candidate: String, distance: Int)?
        for candidate in candidates.sorted() {
            let distance = editDistance(typed, candidate.lowercased())
            if distance <= limit, distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// How many edits still count as a near miss: a third of the word, at least 2 (so a
    /// swapped pair, `opne`, is one).
    public static func limit(for typed: String) -> Int { max(2, typed.count / 3) }

    /// Levenshtein distance: insertions, deletions and substitutions.
    public static func editDistance(_ first: String, _ second: String) -> Int {
        let a = Array(first)
        let b = Array(second)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
