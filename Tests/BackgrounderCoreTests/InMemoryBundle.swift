import BackgrounderCore
import Foundation

/// A bundle held in a dictionary, so the validator's decisions can be tested without a disk.
struct InMemoryBundle: BundleFileSource {
    /// One path as `lstat`, `stat` and `realpath` would report it.
    struct Entry: Sendable {
        var facts: FileFacts
        var contents: Data
        /// What `realpath(3)` answers; `nil` for a dangling link.
        var canonicalPath: String?
        /// What `stat(2)` answers; differs from `facts` only for a symbolic link.
        var resolvedFacts: FileFacts?
    }

    /// The owner every entry gets unless a test says otherwise.
    static let owner: UInt32 = 0
    /// A validator that trusts only ``owner``.
    static let validator = ManifestValidator(trustedOwners: [owner])

    let bundlePath: String
    var entries: [String: Entry]

    /// A bundle holding a directory, an `Info.plist` and an executable script.
    init(path: String = "/apps/Test.bundle", infoPlist: Data, executable: String = "Test") {
        bundlePath = path
        entries = [
            "": Self.directory(at: path),
            "Info.plist": Self.file(at: path + "/Info.plist", contents: infoPlist, permissions: 0o644),
            executable: Self.file(at: path + "/" + executable, contents: Data("#!/bin/sh\n".utf8), permissions: 0o755),
        ]
    }

    /// A bundle whose `Info.plist` is the given text.
    init(path: String = "/apps/Test.bundle", plist: InfoPlistText, executable: String = "Test") {
        self.init(path: path, infoPlist: Data(plist.xml.utf8), executable: executable)
    }

    static func directory(at canonicalPath: String, permissions: UInt32 = 0o755) -> Entry {
        let facts = FileFacts(kind: .directory, permissions: permissions, owner: owner, size: 4096)
        return Entry(facts: facts, contents: Data(), canonicalPath: canonicalPath, resolvedFacts: facts)
    }

    static func file(at canonicalPath: String, contents: Data, permissions: UInt32) -> Entry {
        let facts = FileFacts(kind: .regular, permissions: permissions, owner: owner, size: Int64(contents.count))
        return Entry(facts: facts, contents: contents, canonicalPath: canonicalPath, resolvedFacts: facts)
    }

    /// A symbolic link resolving to `target`, or dangling when `target` is `nil`.
    static func symbolicLink(to target: Entry?) -> Entry {
        let facts = FileFacts(kind: .symbolicLink, permissions: 0o777, owner: owner, size: 8)
        return Entry(facts: facts, contents: Data(), canonicalPath: target?.canonicalPath, resolvedFacts: target?.facts)
    }

    /// Runs the validator, returning the refusal rather than throwing it.
    func validate() -> Result<ValidatedBundle, BundleProblem> {
        Result { () throws(BundleProblem) in try Self.validator.validate(self) }
    }

    func facts(of relativePath: String) -> FileFacts? { entries[relativePath]?.facts }

    func resolvedFacts(of relativePath: String) -> FileFacts? { entries[relativePath]?.resolvedFacts }

    func canonicalPath(of relativePath: String) -> String? { entries[relativePath]?.canonicalPath }

    func contents(of relativePath: String, limit: Int) throws -> Data {
        guard let entry = entries[relativePath], entry.facts.kind == .regular else {
            throw InMemoryReadError(reason: "no regular file at \(relativePath)")
        }
        guard entry.contents.count <= limit else {
            throw InMemoryReadError(reason: "over \(limit) bytes")
        }
        return entry.contents
    }
}

struct InMemoryReadError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

extension InMemoryBundle {
    /// Why the validator refuses this bundle, or `nil` when it loads.
    var refusal: BundleProblem? {
        if case .failure(let problem) = validate() { problem } else { nil }
    }
}

extension InMemoryBundle {
    /// A copy with `entry` at `relativePath`, or with nothing there when `entry` is `nil`.
    func replacing(_ relativePath: String, with entry: Entry?) -> InMemoryBundle {
        var copy = self
        copy.entries[relativePath] = entry
        return copy
    }

    /// A copy with different permission bits or owner on an existing entry.
    func changing(_ relativePath: String, permissions: UInt32? = nil, owner: UInt32? = nil) -> InMemoryBundle {
        var copy = self
        guard var entry = copy.entries[relativePath] else { return copy }
        entry.facts.permissions = permissions ?? entry.facts.permissions
        entry.facts.owner = owner ?? entry.facts.owner
        if entry.facts.kind != .symbolicLink {
            entry.resolvedFacts = entry.facts
        }
        copy.entries[relativePath] = entry
        return copy
    }
}
