import BackgrounderCore
import Foundation
import Testing

/// Inputs the `info-plist` fuzz target (Fuzz/Targets/info-plist.swift, docs/FUZZING.md) found
/// to crash the manifest parser inside Foundation's binary property list decoder; each is also
/// in Fuzz/Corpus/info-plist. `PropertyListLimits` checks the layout first.
@Suite("Info.plist bytes the fuzzer found", .timeLimit(.minutes(5)))
struct FuzzRegressionTests {
    /// Compactor's manifest in binary, as plistlib writes it.
    static let compactor = Data(
        base64Encoded:
            "YnBsaXN0MDDVAQIDBAUGCAkICl8QI0JHVGFza1NjaGVkdWxlclBlcm1pdHRlZElkZW50aWZpZXJzXxASQ0ZCdW5kbGVFeGVj"
            + "dXRhYmxlXxASQ0ZCdW5kbGVJZGVudGlmaWVyXENGQnVuZGxlTmFtZV8QEVVJQmFja2dyb3VuZE1vZGVzoQdfECpvcmcu"
            + "YmFja2dyb3VuZGVyLnNhbXBsZXMuY29tcGFjdG9yLmNvbXBhY3RZQ29tcGFjdG9yXxAib3JnLmJhY2tncm91bmRlci5z"
            + "YW1wbGVzLmNvbXBhY3RvcqELWnByb2Nlc3NpbmcIEzlOY3CEhrO94uQAAAAAAAABAQAAAAAAAAAMAAAAAAAAAAAAAAAA"
            + "AAAA7w==")!

    /// What the fuzzer found: Compactor's manifest with the task identifier's marker turned into
    /// a UTF-16 string of 98 characters, which run past the end of the file.
    static let found = Data(
        base64Encoded:
            "YnBsaXN0MDDVAQIDBAUGCAkICl8QI0JHVGFza1NjaGVkdWxlclBlcm1pdHRlZElkZW50aWZpZXJzXxASQ0ZCdW5kbGVFeGVj"
            + "dXRhYmxlXxASQ0ZCdW5kbGVJZGVudGlmaWVyXENGQnVuZGxlTmFtZV8QEVVJQmFja2dyb3VuZE1vZGVzoQdvEGJfZy5y"
            + "KmFja2dyb3VuZGVyLnNhbXBsZXMuY29tcGFjdG9yLmNvbXBhY3RZQ29tcGFjdG9yXxAib3JnLmJhY2tncm91bmRlci5z"
            + "YW1wbGVzLmNvbXBhY3RvcqELWnByb2Nlc3NpbmcIEzlOY3CEhrO94uQAAAAAAAABAQAAAAAAAAAMAAAAAAAAAAAAAAAA"
            + "AAAA7w==")!

    /// Compactor's manifest with one byte changed.
    static func compactor(setting offset: Int, to value: UInt8) -> Data {
        var bytes = [UInt8](compactor)
        bytes[offset] = value
        return Data(bytes)
    }

    /// Objects that do not fit the file: the string the fuzzer found, an ASCII string past the
    /// offset table, an array naming an object that does not exist, an offset table past the
    /// trailer, a marker of no type.
    static let misshapen: [Data] = [
        found,
        compactor(setting: 0x88, to: 0xFF),  // the task identifier, 255 bytes long
        compactor(setting: 0x85, to: 0x0D),  // the identifiers' array names object 13 of 12
        compactor(setting: 0x11A, to: 0xFF),  // the table offset, in the trailer's last byte
        compactor(setting: 0x86, to: 0x70),  // the task identifier's marker
    ]

    @Test("the samples' binary manifest is read")
    func compactorIsRead() throws {
        let manifest = try ManifestValidator.manifest(fromInfoPlist: Self.compactor, path: "/b/Info.plist").manifest
        #expect(manifest.bundleIdentifier == "org.backgrounder.samples.compactor")
        #expect(manifest.permittedTaskIdentifiers == ["org.backgrounder.samples.compactor.compact"])
    }

    @Test("a binary manifest whose objects do not fit is refused, not a trap", arguments: misshapen)
    func misshapenIsRefused(data: Data) {
        let problem = #expect(throws: BundleProblem.self) {
            try ManifestValidator.manifest(fromInfoPlist: data, path: "/b/Info.plist")
        }
        #expect(problem?.key == "Info.plist")
        #expect(problem?.reason == "not a valid property list (XML or binary)")
    }
}
