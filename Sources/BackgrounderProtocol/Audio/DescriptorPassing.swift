#if canImport(Glibc)
    import Glibc
#endif

/// Passing file descriptors over a Unix stream socket (SCM_RIGHTS), as the daemon hands an
/// app the memfd of an ``AudioRing``.
///
/// On a stream socket the descriptors travel with the first byte they were sent with, so a
/// protocol sends them with a message of its own and reads that message with
/// ``receive(over:maximumBytes:maximumDescriptors:)``.
public enum DescriptorPassing {
    /// The most descriptors Linux passes in one message (SCM_MAX_FD).
    public static let maximumDescriptorsPerMessage = 253

    /// Sends `bytes` with `descriptors` attached. The descriptors stay open here; the peer
    /// receives duplicates. SIGPIPE is never raised: a closed peer is an `EPIPE` error.
    /// - Parameters:
    ///   - bytes: At least one byte, which carries the descriptors.
    ///   - descriptors: Up to ``maximumDescriptorsPerMessage`` open descriptors.
    ///   - socket: A connected Unix stream socket.
    /// - Throws: ``DescriptorPassingError``: `.invalidArgument`, or `.system` when `sendmsg`
    ///   fails (`EAGAIN` on a non-blocking socket that is full).
    public static func send(
        _ bytes: [UInt8], descriptors: [Int32], over socket: Int32
    ) throws(DescriptorPassingError) {
        guard !bytes.isEmpty else {
            throw DescriptorPassingError(.invalidArgument, "descriptors need at least one byte to travel with")
        }
        guard descriptors.count <= maximumDescriptorsPerMessage else {
            throw DescriptorPassingError(
                .invalidArgument,
                "\(descriptors.count) descriptors; at most \(maximumDescriptorsPerMessage) go in one message")
        }
        let control = ControlBuffer(descriptors: descriptors.count)
        defer { control.deallocate() }
        if !descriptors.isEmpty {
            control.storeRights(descriptors)
        }
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                var vector = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + sent), iov_len: raw.count - sent)
                return withUnsafeMutablePointer(to: &vector) { vector in
                    var message = msghdr()
                    message.msg_iov = vector
                    message.msg_iovlen = 1
                    // The descriptors go with the first sendmsg only; the kernel has them once
                    // any byte is accepted.
                    if sent == 0 && !descriptors.isEmpty {
                        message.msg_control = control.pointer
                        message.msg_controllen = control.bytes
                    }
                    return retryingInterrupted { sendmsg(socket, &message, Int32(MSG_NOSIGNAL)) }
                }
            }
            guard result >= 0 else { throw .system("sendmsg", errno) }
            sent += result
        }
    }

    /// Receives up to `maximumBytes` and the descriptors that came with them, close-on-exec.
    /// - Parameters:
    ///   - socket: A connected Unix stream socket.
    ///   - maximumBytes: At least 1.
    ///   - maximumDescriptors: How many descriptors this message may carry; more are closed.
    /// - Returns: The bytes, empty at end of file, and the descriptors, which the caller owns.
    /// - Throws: ``DescriptorPassingError``: `.tooManyDescriptors` or `.truncated` (having
    ///   closed every descriptor that arrived), `.invalidArgument`, or `.system` when
    ///   `recvmsg` fails.
    public static func receive(
        over socket: Int32, maximumBytes: Int, maximumDescriptors: Int
    ) throws(DescriptorPassingError) -> (bytes: [UInt8], descriptors: [Int32]) {
        guard maximumBytes > 0 else {
            // A zero-length read would return 0 and look like end of file.
            throw DescriptorPassingError(.invalidArgument, "maximumBytes is \(maximumBytes); at least 1 is needed")
        }
        // Room for as many as the kernel can send, so a peer sending too many is told apart
        // from a truncated message, and their descriptors arrive here to be closed.
        let control = ControlBuffer(descriptors: maximumDescriptorsPerMessage)
        defer { control.deallocate() }
        var bytes = [UInt8](repeating: 0, count: maximumBytes)
        var flags: Int32 = 0
        var controlBytes = 0
        let result = bytes.withUnsafeMutableBytes { raw in
            var vector = iovec(iov_base: raw.baseAddress, iov_len: raw.count)
            return withUnsafeMutablePointer(to: &vector) { vector in
                var message = msghdr()
                message.msg_iov = vector
                message.msg_iovlen = 1
                message.msg_control = control.pointer
                message.msg_controllen = control.bytes
                let result = retryingInterrupted { recvmsg(socket, &message, Int32(MSG_CMSG_CLOEXEC)) }
                flags = message.msg_flags
                controlBytes = message.msg_controllen
                return result
            }
        }
        guard result >= 0 else { throw .system("recvmsg", errno) }
        let descriptors = control.rights(within: controlBytes)
        if flags & Int32(MSG_CTRUNC) != 0 {
            descriptors.forEach { close($0) }
            throw DescriptorPassingError(
                .truncated, "control message truncated; closed the \(descriptors.count) descriptors that arrived")
        }
        guard descriptors.count <= maximumDescriptors else {
            descriptors.forEach { close($0) }
            throw DescriptorPassingError(
                .tooManyDescriptors, "\(descriptors.count) descriptors arrived; at most \(maximumDescriptors) expected")
        }
        bytes.removeSubrange(result...)
        return (bytes, descriptors)
    }
}
