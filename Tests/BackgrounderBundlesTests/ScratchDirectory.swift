import Foundation

/// Runs `body` with a fresh directory under the system temporary directory, removed afterwards.
func withScratchDirectory<Result>(_ body: (BundleFixture) throws -> Result) throws -> Result {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("BackgrounderBundlesTests-\(UUID().uuidString)", isDirectory: true)
    let fixture = BundleFixture(directory: url.path)
    try fixture.makeDirectory(fixture.directory)
    defer { try? FileManager.default.removeItem(atPath: fixture.directory) }
    return try body(fixture)
}
