/// What a `CFBundleIdentifier` may look like: reverse-DNS labels of letters, digits and
/// hyphens separated by dots, as iOS requires. Identifiers become file and cgroup names,
/// so nothing else is allowed.
public enum BundleIdentifierRules {
    /// The longest identifier accepted (iOS's limit).
    public static let maximumLength = 155

    /// Why an identifier is unacceptable.
    /// - Parameter identifier: The candidate.
    /// - Returns: The reason, or `nil` when it is fine.
    public static func problem(with identifier: String) -> String? {
        if identifier.utf8.count > maximumLength {
            return "longer than \(maximumLength) characters"
        }
        let allowed = identifier.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == ".")
        }
        if !allowed {
            return "'\(identifier)' may hold only letters, digits, '-' and '.'"
        }
        if identifier.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "'\(identifier)' has an empty label (leading, trailing or doubled '.')"
        }
        return nil
    }
}
