import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// This process's mount table, `/proc/self/mountinfo`, read in one `read` call: the kernel
/// builds the text under the namespace's lock per call, so a table read in several calls
/// while other tests mount and unmount (volumes, tmpfs) can skip a line that was there all
/// along.
public enum MountTable {
    /// The mount points, in the table's order (escapes such as `\040` left as they are).
    public static func mountPoints() -> [String] {
        var size = 1 << 20
        while size <= 64 << 20 {
            let descriptor = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return [] }
            defer { close(descriptor) }
            var buffer = [UInt8](repeating: 0, count: size)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, size) }
            guard count >= 0 else { return [] }
            if count < size {
                let text = String(decoding: buffer[..<count], as: UTF8.self)
                return text.split(separator: "\n").compactMap { line in
                    let fields = line.split(separator: " ")
                    return fields.count > 4 ? String(fields[4]) : nil
                }
            }
            size *= 4
        }
        return []
    }
}
