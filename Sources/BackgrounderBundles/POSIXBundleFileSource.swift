public import BackgrounderCore
public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bundle directory on the local file system, read with `lstat`, `stat` and `realpath`.
public struct POSIXBundleFileSource: BundleFileSource {
    public let bundlePath: String

    /// Creates a source for a bundle directory.
    /// - Parameter bundlePath: The directory, absolute or relative to the working directory.
    public init(bundlePath: String) {
        // A trailing slash would make "X.bundle/" and "X.bundle" look like two bundles.
        var path = bundlePath
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        self.bundlePath = path
    }

    private func absolute(_ relativePath: String) -> String {
        relativePath.isEmpty ? bundlePath : bundlePath + "/" + relativePath
    }

    public func facts(of relativePath: String) -> FileFacts? {
        var info = stat()
        guard lstat(absolute(relativePath), &info) == 0 else { return nil }
        return FileFacts(info)
    }

    public func resolvedFacts(of relativePath: String) -> FileFacts? {
        var info = stat()
        guard stat(absolute(relativePath), &info) == 0 else { return nil }
        return FileFacts(info)
    }

    public func canonicalPath(of relativePath: String) -> String? {
        guard let resolved = realpath(absolute(relativePath), nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    public func contents(of relativePath: String, limit: Int) throws -> Data {
        let url = URL(fileURLWithPath: absolute(relativePath))
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        // Read one byte past the limit so a file that grew since lstat is still caught.
        let data = try handle.read(upToCount: limit + 1) ?? Data()
        if data.count > limit {
            throw BundleReadError(reason: "grew past \(limit) bytes while being read")
        }
        return data
    }
}

/// Why a bundle file could not be read.
struct BundleReadError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

extension FileFacts {
    init(_ info: stat) {
        let kind: Kind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        self.init(
            kind: kind,
            permissions: UInt32(info.st_mode & 0o7777),
            owner: UInt32(info.st_uid),
            size: Int64(info.st_size)
        )
    }
}
