#if canImport(Glibc)
    import Glibc
#endif

/// Why descriptors could not be passed over a socket.
public struct DescriptorPassingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A machine-readable kind of problem.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The call was asked for something impossible (no bytes to send, too many descriptors).
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// `sendmsg` or `recvmsg` failed; ``DescriptorPassingError/errorNumber`` says why.
        public static let system = Code(rawValue: "system")
        /// The peer attached more descriptors than the receiver accepts; they were closed.
        public static let tooManyDescriptors = Code(rawValue: "tooManyDescriptors")
        /// The kernel truncated the control message (MSG_CTRUNC); what arrived was closed.
        public static let truncated = Code(rawValue: "truncated")

        public var description: String { rawValue }
    }

    /// The kind of problem.
    public var code: Code
    /// What was wrong.
    public var reason: String
    /// The `errno` of a failed system call, for ``Code/system``.
    public var errorNumber: Int32?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of problem.
    ///   - reason: What was wrong.
    ///   - errorNumber: The `errno` of the failed call, if one failed.
    public init(_ code: Code, _ reason: String, errorNumber: Int32? = nil) {
        self.code = code
        self.reason = reason
        self.errorNumber = errorNumber
    }

    /// A failed system call, described as "call: strerror".
    static func system(_ call: String, _ number: Int32) -> DescriptorPassingError {
        DescriptorPassingError(.system, "\(call): \(String(cString: strerror(number)))", errorNumber: number)
    }

    public var description: String { reason }
}
