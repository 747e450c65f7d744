extension Result {
    /// The error, or `nil` on success.
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
