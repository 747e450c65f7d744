#if canImport(Glibc)
    import Glibc
#endif

/// A value behind a pthread mutex: what the project uses instead of `Synchronization.Mutex`.
///
/// The standard library's `Mutex` on Linux locks inside the uninstrumented runtime, where
/// ThreadSanitizer cannot see it: a 15-line program counting under it, correct every time, draws
/// seven race reports, and the same program under a pthread mutex none. With every lock one the
/// sanitizer understands, its reports are about our code (docs/decisions/0012-locked.md).
/// The API is `Mutex`'s, so a value is reached only inside `withLock`.
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// A lock guarding `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
