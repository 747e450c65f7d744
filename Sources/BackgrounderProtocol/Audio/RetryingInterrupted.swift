#if canImport(Glibc)
    import Glibc
#endif

/// Calls `call` again for as long as it fails with `EINTR`, so a signal delivered to the
/// thread never surfaces as an error from the audio transport's system calls.
/// - Parameter call: A system call returning -1 and setting `errno` on failure.
/// - Returns: The first result that is not an `EINTR` failure.
func retryingInterrupted<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}
