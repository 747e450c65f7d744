public import BackgrounderCore
public import GRDB

/// The store keeps a bundle identifier as the text it is, so a row written before the type
/// existed reads back unchanged.
extension BundleID: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> BundleID? {
        String.fromDatabaseValue(dbValue).map(BundleID.init(rawValue:))
    }
}
