package import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// The system-call patterns the daemon, BackgroundKit and the control client share, written
// once (as swift-nio keeps one syscall wrapper): `package`, so every module of Backgrounder
// sees them and no app linking BackgroundKit does.

/// Calls `call` again for as long as it fails with `EINTR`, so a signal delivered to the
/// thread never surfaces as an error from a blocking system call.
/// - Parameter call: A system call returning -1 and setting `errno` on failure.
/// - Returns: The first result that is not an `EINTR` failure; on any other failure `errno`
///   is still the call's.
package func retryingInterrupted<Result: BinaryInteger>(_ call: () -> Result) -> Result {
    while true {
        let result = call()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

/// A `write(2)` that failed: its `errno`.
package struct WriteFailure: Error, Sendable {
    /// The `errno` of the failed write.
    package let code: Int32
}

/// Writes every byte to `descriptor`, going on after short and interrupted writes.
/// - Parameters:
///   - descriptor: An open descriptor, blocking.
///   - bytes: What to write (`Data`, `[UInt8]`, a buffer).
///   - socket: Whether `descriptor` is a socket whose peer may be gone: it is written with
///     `send(MSG_NOSIGNAL)`, so a vanished peer is an `EPIPE` to handle, not a SIGPIPE that
///     ends the process.
/// - Throws: ``WriteFailure`` with the `errno` of the first write that wrote nothing; what
///   came before it stays written.
package func writeAll(_ descriptor: Int32, _ bytes: some ContiguousBytes, socket: Bool = false) throws(WriteFailure) {
    // `withUnsafeBytes` rethrows untyped, so the failure comes out as a value.
    let failure = bytes.withUnsafeBytes { raw -> WriteFailure? in
        var offset = 0
        while offset < raw.count {
            let written = retryingInterrupted {
                socket
                    ? send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                    : write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            guard written > 0 else { return WriteFailure(code: errno) }
            offset += written
        }
        return nil
    }
    if let failure { throw failure }
}

/// Runs `body` on a new thread named `name` (the name shows in `top -H` and in crash
/// reports), for work that blocks in system calls and so must stay off Swift's
/// cooperative thread pool.
package func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        // Named from inside: Foundation on Linux drops a name set before `start()`, and
        // every thread would show a libdispatch worker's name.
        nameCurrentThread(name)
        body()
    }
    thread.start()
}

/// Names the calling thread (at most 15 bytes show) through `/proc/thread-self/comm`, as
/// Glibc's Swift module has no `pthread_setname_np`.
private func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

/// The Unix-domain socket address of `path` and the length to pass with it, or `nil` when
/// the path does not fit in `sun_path`.
/// - Parameter abstract: Read a leading `@` as Linux's abstract namespace (as systemd writes
///   `$NOTIFY_SOCKET`): the name starts with a NUL and the length counts only its bytes.
package func unixSocketAddress(_ path: String, abstract: Bool = false) -> (address: sockaddr_un, length: socklen_t)? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(path.utf8)
    let isAbstract = abstract && bytes.first == UInt8(ascii: "@")
    if isAbstract { bytes[0] = 0 }
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    // The rest of sun_path stays zero: a path's terminating NUL.
    withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
    let length = isAbstract ? MemoryLayout<sa_family_t>.size + bytes.count : MemoryLayout<sockaddr_un>.size
    return (address, socklen_t(length))
}
