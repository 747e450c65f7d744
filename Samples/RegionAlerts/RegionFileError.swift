/// Why a regions file was refused: the file, the feature (its index in `features`, from 0),
/// the field, and what is wrong with it.
struct RegionFileError: Error, Equatable, CustomStringConvertible {
    /// The kind of problem.
    enum Code: Equatable {
        /// The file to import does not exist.
        case notFound
        /// The file could not be read.
        case unreadable
        /// The file is not JSON.
        case notJSON
        /// The JSON is not a FeatureCollection of Point features with the properties a region needs.
        case invalid
    }

    /// The kind of problem.
    var code: Code
    /// The file, as the person named it.
    var file: String
    /// The feature's index in `features`, counting from 0, when the problem is in one.
    var feature: Int?
    /// The field, as a path (`properties.radius`), when the problem is in one.
    var field: String?
    /// What is wrong.
    var reason: String

    /// `places.geojson: feature 2: properties.radius: must be a number of metres between 1 and
    /// 100000, not "big"`.
    var description: String {
        ([file] + [feature.map { "feature \($0)" }, field].compactMap { $0 } + [reason]).joined(separator: ": ")
    }
}
