#if canImport(Glibc)
    import Glibc
#endif

/// Why an ``AudioRing`` could not be created or mapped.
public struct AudioRingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A machine-readable kind of problem.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The capacity, frame size or low-water mark asked of ``AudioRing/create(capacity:frameBytes:lowWater:name:)``
        /// is not possible.
        public static let invalidParameters = Code(rawValue: "invalidParameters")
        /// A system call failed; ``AudioRingError/errorNumber`` says why.
        public static let system = Code(rawValue: "system")
        /// The shared header does not describe a ring this version understands.
        public static let badHeader = Code(rawValue: "badHeader")
        /// The file's size does not match its header.
        public static let badSize = Code(rawValue: "badSize")
        /// The descriptor is not a memfd sealed against shrinking, so the peer could truncate
        /// it under our mapping and make the next access raise SIGBUS.
        public static let notSealed = Code(rawValue: "notSealed")

        public var description: String { rawValue }
    }

    /// The kind of problem.
    public var code: Code
    /// What was wrong, naming the field, size or call.
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
    static func system(_ call: String, _ number: Int32) -> AudioRingError {
        AudioRingError(.system, "\(call): \(String(cString: strerror(number)))", errorNumber: number)
    }

    public var description: String { reason }
}
