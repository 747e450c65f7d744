package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

/// `bgctl status`: what people shared with apps, and the music library's grants.
extension SharingCapability {
    package func status(in apps: any AppCore) -> CapabilityStatus {
        let shared = files.counts
        let library = libraryGrants.values.filter { $0 == .granted }.count
        let summary =
            "\(shared.grants) file(s) shared with \(shared.apps) app(s); music library "
            + (musicDirectory.map { "\($0), granted to \(library) app(s)" } ?? "not found")
        return CapabilityStatus(
            name: "sharing", summary: summary,
            counts: ["sharedFiles": shared.grants, "libraryGrants": library])
    }
}
