import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Small text files of sysfs and procfs, read with plain `read(2)` until end of file: their
/// `stat` size is 0 or 4096 whatever they hold, so nothing may trust it, and they hand out
/// about a page per read, where Foundation's `String(contentsOfFile:)` stops after its first
/// (about 4 KB: the cgroup2 line of a long `mountinfo`, or most of a busy `cgroup.procs`, would
/// be silently missing).
package enum KernelFile {
    /// Why a file could not be read.
    package enum Failure: Error, Equatable {
        /// The file (or a directory on its path) does not exist.
        case missing
        /// Any other error, as `strerror` says it.
        case unreadable(String)
    }

    /// The file's text with surrounding white space removed.
    package static func read(_ path: String) -> Result<String, Failure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(failure(errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = retryingInterrupted {
                chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            }
            if count < 0 { return .failure(failure(errno)) }
            if count == 0 { break }
            bytes += chunk[..<count]
            // A runaway file (not one the kernel writes) must not fill memory.
            if bytes.count > 1 << 20 { break }
        }
        return .success(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The entries of a directory, sorted, or why not.
    package static func entries(_ path: String) -> Result<[String], Failure> {
        guard let directory = opendir(path) else { return .failure(failure(errno)) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names.sorted())
    }

    private static func failure(_ code: Int32) -> Failure {
        code == ENOENT || code == ENOTDIR ? .missing : .unreadable(String(cString: strerror(code)))
    }
}

extension KernelFile.Failure: CustomStringConvertible {
    package var description: String {
        switch self {
        case .missing: "does not exist"
        case .unreadable(let reason): reason
        }
    }
}
