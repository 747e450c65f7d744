package import BackgrounderCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The files people shared with apps, and the one way an app reaches them: a descriptor the
/// daemon opens for it (`OPEN PATH` on the descriptor socket), read-only and non-blocking.
/// The app's sandbox never widens; the daemon opens with the person's authority, so the app
/// reads what the person could and chose, and nothing beside it.
///
/// The descriptor socket's thread reads the table while the app manager's actor changes it,
/// hence the lock.
package final class SharedFiles: Sendable {
    private let table: Locked<[BundleID: [SharedFileGrant]]>
    /// The directories holding the apps' own files: a link found there on the way to a shared
    /// path is not followed (an app may have planted it), as for imports.
    private let appDirectories: Set<FileIdentity>

    package init(_ grants: [BundleID: [SharedFileGrant]], appDirectories: Set<FileIdentity>) {
        table = Locked(grants)
        self.appDirectories = appDirectories
    }

    /// How many files and folders people shared by name, and with how many apps (the music
    /// library's grants are counted apart, as its authorization).
    package var counts: (grants: Int, apps: Int) {
        table.withLock { table in
            let named = table.values.map { $0.filter { !$0.library } }.filter { !$0.isEmpty }
            return (named.reduce(0) { $0 + $1.count }, named.count)
        }
    }

    /// What is shared with an app, by path.
    package func grants(for identifier: BundleID) -> [SharedFileGrant] {
        table.withLock { $0[identifier] ?? [] }
    }

    /// Sets what is shared with an app (after the store recorded it).
    package func replace(_ identifier: BundleID, with grants: [SharedFileGrant]) {
        table.withLock { $0[identifier] = grants.isEmpty ? nil : grants.sorted { $0.path < $1.path } }
    }

    /// Opens a shared file or folder, or a file inside a shared folder, for an app.
    /// - Parameters:
    ///   - requested: The absolute path the app asked for.
    ///   - identifier: The app, as the kernel identified the asking process.
    /// - Returns: A descriptor opened `O_RDONLY | O_NONBLOCK`, and whether it is a folder.
    /// - Throws: ``SharedFileRefusal`` saying why, in words for the app's log.
    package func open(_ requested: String, for identifier: BundleID) throws(SharedFileRefusal) -> (
        descriptor: Int32, directory: Bool
    ) {
        guard requested.hasPrefix("/") else { throw SharedFileRefusal("\(requested): not an absolute path") }
        let names = requested.split(separator: "/").map(String.init).filter { $0 != "." }
        guard !names.contains("..") else {
            throw SharedFileRefusal("\(requested): '..' is not allowed in a shared file's path")
        }
        let path = "/" + names.joined(separator: "/")
        // The closest grant: a file shared on its own, or the innermost shared folder.
        let covering = grants(for: identifier).compactMap { grant in grant.covers(path).map { (grant, $0) } }
        guard let (grant, rest) = covering.min(by: { $0.1.count < $1.1.count }) else {
            throw SharedFileRefusal("\(path): not shared with \(identifier) (bgctl share \(identifier) PATH)")
        }
        var current: Int32
        do throws(DaemonError) {
            current = try FileImport.openSource(grant.path, appDirectories: appDirectories)
        } catch {
            throw SharedFileRefusal("\(grant.path): \(error.reason)")
        }
        guard FileIdentity(current) == grant.identity else {
            close(current)
            throw SharedFileRefusal(
                "\(grant.path): not the file that was shared (it was replaced since); share it again")
        }
        // Below the grant, one name at a time, following no link: a link inside a shared
        // folder could lead anywhere the person can read.
        for name in rest {
            let next = openat(current, name, FileImport.pathOnly | O_NOFOLLOW | O_CLOEXEC)
            let error = errno
            close(current)
            guard next >= 0 else { throw SharedFileRefusal("\(path): \(String(cString: strerror(error)))") }
            var info = stat()
            guard fstat(next, &info) == 0, info.st_mode & S_IFMT != S_IFLNK else {
                close(next)
                throw SharedFileRefusal("\(path): \(name) is a symbolic link inside a shared folder; not followed")
            }
            current = next
        }
        if !rest.isEmpty {
            let readable = Glibc.open("/proc/self/fd/\(current)", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            let error = errno
            close(current)
            guard readable >= 0 else { throw SharedFileRefusal("\(path): \(String(cString: strerror(error)))") }
            current = readable
        }
        var info = stat()
        guard fstat(current, &info) == 0 else {
            close(current)
            throw SharedFileRefusal("\(path): cannot stat")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return (current, false)
        case S_IFDIR: return (current, true)
        default:
            close(current)
            throw SharedFileRefusal("\(path): not a regular file or folder")
        }
    }
}

/// Why a shared file was not opened for an app.
package struct SharedFileRefusal: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
