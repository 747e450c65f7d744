import BackgrounderBundles
public import BackgrounderCore
import Foundation

/// Sample app bundles assembled from the built products, as `swift package bundle` does.
public enum SampleBundles {
    /// Assembles a sample into `directory/NAME.bundle`.
    /// - Parameters:
    ///   - name: The sample's product name (its sources are in `Samples/NAME`).
    ///   - directory: The bundles directory.
    /// - Returns: The validated bundle.
    @discardableResult
    public static func assemble(_ name: String, into directory: String) throws -> ValidatedBundle {
        // Policy plug-ins are dynamic libraries: libNAME.so beside the executables.
        let library = Locations.product("lib\(name).so")
        let built = FileManager.default.fileExists(atPath: library) ? library : Locations.product(name)
        return try BundleAssembler().assemble(
            name: name,
            executable: built,
            infoPlist: Locations.repositoryRoot + "/Samples/\(name)/Info.plist",
            outputDirectory: directory
        )
    }
}
