import BackgrounderBundles
public import BackgrounderCore

/// Sample app bundles assembled from the built products, as `swift package bundle` does.
public enum SampleBundles {
    /// Assembles a sample into `directory/NAME.bundle`.
    /// - Parameters:
    ///   - name: The sample's product name (its sources are in `Samples/NAME`).
    ///   - directory: The bundles directory.
    /// - Returns: The validated bundle.
    @discardableResult
    public static func assemble(_ name: String, into directory: String) throws -> ValidatedBundle {
        try BundleAssembler().assemble(
            name: name,
            executable: Locations.product(name),
            infoPlist: Locations.repositoryRoot + "/Samples/\(name)/Info.plist",
            outputDirectory: directory
        )
    }
}
