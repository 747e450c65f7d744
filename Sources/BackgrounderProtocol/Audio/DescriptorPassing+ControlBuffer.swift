#if canImport(Glibc)
    import Glibc
#endif

extension DescriptorPassing {
    /// An aligned buffer for one SCM_RIGHTS control message, laid out as glibc's CMSG_SPACE,
    /// CMSG_LEN and CMSG_DATA macros (which Swift cannot import) lay it out: headers and data
    /// aligned to `size_t`.
    struct ControlBuffer {
        let pointer: UnsafeMutableRawPointer
        let bytes: Int

        /// `length` rounded up to the alignment of `size_t`, as CMSG_ALIGN.
        static func aligned(_ length: Int) -> Int {
            let alignment = MemoryLayout<Int>.size
            return (length + alignment - 1) & ~(alignment - 1)
        }

        /// Where the data starts after a header.
        static var dataOffset: Int { aligned(MemoryLayout<cmsghdr>.size) }

        /// Room for `descriptors` descriptors, as CMSG_SPACE.
        init(descriptors: Int) {
            bytes = Self.dataOffset + Self.aligned(descriptors * MemoryLayout<Int32>.size)
            pointer = UnsafeMutableRawPointer.allocate(
                byteCount: max(bytes, 1), alignment: MemoryLayout<cmsghdr>.alignment)
            pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(bytes, 1))
        }

        func deallocate() {
            pointer.deallocate()
        }

        /// Writes one SCM_RIGHTS message carrying `descriptors`; the buffer was made for them.
        func storeRights(_ descriptors: [Int32]) {
            var header = cmsghdr()
            header.cmsg_len = Self.dataOffset + descriptors.count * MemoryLayout<Int32>.size
            header.cmsg_level = SOL_SOCKET
            header.cmsg_type = Int32(SCM_RIGHTS)
            pointer.storeBytes(of: header, as: cmsghdr.self)
            for (index, descriptor) in descriptors.enumerated() {
                pointer.storeBytes(
                    of: descriptor, toByteOffset: Self.dataOffset + index * MemoryLayout<Int32>.size, as: Int32.self)
            }
        }

        /// The descriptors in every SCM_RIGHTS message among the first `length` bytes, as
        /// CMSG_FIRSTHDR and CMSG_NXTHDR walk them; other messages are skipped.
        func rights(within length: Int) -> [Int32] {
            var descriptors: [Int32] = []
            let length = min(length, bytes)
            var offset = 0
            while offset + Self.dataOffset <= length {
                let header = pointer.load(fromByteOffset: offset, as: cmsghdr.self)
                let messageLength = header.cmsg_len
                guard messageLength >= Self.dataOffset, messageLength <= length - offset else { break }
                if header.cmsg_level == SOL_SOCKET && header.cmsg_type == Int32(SCM_RIGHTS) {
                    let count = (messageLength - Self.dataOffset) / MemoryLayout<Int32>.size
                    for index in 0..<count {
                        descriptors.append(
                            pointer.load(
                                fromByteOffset: offset + Self.dataOffset + index * MemoryLayout<Int32>.size,
                                as: Int32.self))
                    }
                }
                offset += Self.aligned(messageLength)
            }
            return descriptors
        }
    }
}
