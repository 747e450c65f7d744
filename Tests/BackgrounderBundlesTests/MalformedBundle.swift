import BackgrounderTestSupport
import Foundation
import Testing

/// One way to get a bundle wrong, with what the scanner must say about it.
///
/// Each case makes its own `NAME.bundle` with its own identifier, so all of them can sit in
/// one directory beside a good bundle and be told apart by path.
enum MalformedBundle: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case missingIdentifier = "MissingIdentifier"
    case missingName = "MissingName"
    case missingExecutableKey = "MissingExecutableKey"
    case modesAsString = "ModesAsString"
    case exitsOnSuspendAsString = "ExitsOnSuspendAsString"
    case identifierAsInteger = "IdentifierAsInteger"
    case identifierWithSlash = "IdentifierWithSlash"
    case blankName = "BlankName"
    case unknownMode = "UnknownMode"
    case locationWithoutUsageDescription = "LocationWithoutUsageDescription"
    case absoluteExecutable = "AbsoluteExecutable"
    case executableEscapesWithDotDot = "ExecutableEscapesWithDotDot"
    case executableMissing = "ExecutableMissing"
    case executableNotExecutable = "ExecutableNotExecutable"
    case executableGroupWritable = "ExecutableGroupWritable"
    case executableLinksOutside = "ExecutableLinksOutside"
    case executableLinkDangles = "ExecutableLinkDangles"
    case executableIsDirectory = "ExecutableIsDirectory"
    case bundleWorldWritable = "BundleWorldWritable"
    case bundleIsAFile = "BundleIsAFile"
    case infoPlistGroupWritable = "InfoPlistGroupWritable"
    case infoPlistMissing = "InfoPlistMissing"
    case infoPlistIsDirectory = "InfoPlistIsDirectory"
    case infoPlistNotAPropertyList = "InfoPlistNotAPropertyList"
    case infoPlistEmpty = "InfoPlistEmpty"
    case infoPlistHuge = "InfoPlistHuge"
    case infoPlistGarbageBinary = "InfoPlistGarbageBinary"
    case infoPlistTopLevelArray = "InfoPlistTopLevelArray"
    case infoPlistNestedTooDeep = "InfoPlistNestedTooDeep"

    /// Which file the refusal must name.
    enum Location: Sendable {
        case bundle, infoPlist, executable
    }

    /// What the refusal must say.
    struct Expectation: Sendable {
        var location: Location
        var key: String
        var reason: String
    }

    var testDescription: String { rawValue }
    var bundleName: String { rawValue + ".bundle" }
    var identifier: String { "org.example.malformed." + rawValue }

    /// The path the refusal must name when the case is made by `fixture`.
    func expectedPath(in fixture: BundleFixture) -> String {
        let bundle = fixture.path(bundleName)
        switch expectation.location {
        case .bundle: return bundle
        case .infoPlist: return bundle + "/Info.plist"
        case .executable: return bundle + "/" + BundleFixture.executableName
        }
    }

    var expectation: Expectation {
        switch self {
        case .missingIdentifier:
            Expectation(location: .infoPlist, key: "CFBundleIdentifier", reason: "required key is missing")
        case .missingName:
            Expectation(location: .infoPlist, key: "CFBundleName", reason: "required key is missing")
        case .missingExecutableKey:
            Expectation(location: .infoPlist, key: "CFBundleExecutable", reason: "required key is missing")
        case .modesAsString:
            Expectation(location: .infoPlist, key: "UIBackgroundModes", reason: "must be an array of strings")
        case .exitsOnSuspendAsString:
            Expectation(location: .infoPlist, key: "UIApplicationExitsOnSuspend", reason: "must be a boolean")
        case .identifierAsInteger:
            Expectation(location: .infoPlist, key: "CFBundleIdentifier", reason: "must be a string")
        case .identifierWithSlash:
            Expectation(location: .infoPlist, key: "CFBundleIdentifier", reason: "may hold only letters, digits")
        case .blankName:
            Expectation(location: .infoPlist, key: "CFBundleName", reason: "must not be empty")
        case .unknownMode:
            Expectation(location: .infoPlist, key: "UIBackgroundModes", reason: "unknown mode 'teleport'")
        case .locationWithoutUsageDescription:
            Expectation(
                location: .infoPlist,
                key: "NSLocationAlwaysAndWhenInUseUsageDescription",
                reason: "required by the location background mode"
            )
        case .absoluteExecutable:
            Expectation(location: .infoPlist, key: "CFBundleExecutable", reason: "not absolute")
        case .executableEscapesWithDotDot:
            Expectation(location: .infoPlist, key: "CFBundleExecutable", reason: "'..' would leave the bundle")
        case .executableMissing:
            Expectation(location: .executable, key: "CFBundleExecutable", reason: "executable missing")
        case .executableNotExecutable:
            Expectation(location: .executable, key: "CFBundleExecutable", reason: "not executable")
        case .executableGroupWritable:
            Expectation(
                location: .executable, key: "CFBundleExecutable", reason: "writable by group or others (mode 775)")
        case .executableLinksOutside:
            Expectation(
                location: .executable, key: "CFBundleExecutable",
                reason: "resolves to \(Self.realBinTrue), outside the bundle")
        case .executableLinkDangles:
            Expectation(location: .executable, key: "CFBundleExecutable", reason: "symbolic link points nowhere")
        case .executableIsDirectory:
            Expectation(location: .executable, key: "CFBundleExecutable", reason: "not a regular file")
        case .bundleWorldWritable:
            Expectation(location: .bundle, key: "bundle", reason: "writable by group or others (mode 777)")
        case .bundleIsAFile:
            Expectation(location: .bundle, key: "bundle", reason: "not a directory")
        case .infoPlistGroupWritable:
            Expectation(location: .infoPlist, key: "Info.plist", reason: "writable by group or others (mode 664)")
        case .infoPlistMissing:
            Expectation(location: .infoPlist, key: "Info.plist", reason: "missing")
        case .infoPlistIsDirectory:
            Expectation(location: .infoPlist, key: "Info.plist", reason: "not a regular file")
        case .infoPlistNotAPropertyList:
            Expectation(location: .infoPlist, key: "Info.plist", reason: "not a valid property list")
        case .infoPlistEmpty:
            Expectation(location: .infoPlist, key: "Info.plist", reason: "empty file")
        case .infoPlistHuge:
            Expectation(location: .infoPlist, key: "Info.plist", reason: "over the 262144-byte limit")
        case .infoPlistGarbageBinary:
            Expectation(location: .infoPlist, key: "Info.plist", reason: "not a valid property list")
        case .infoPlistTopLevelArray:
            Expectation(location: .infoPlist, key: "Info.plist", reason: "the top level is not a dictionary")
        case .infoPlistNestedTooDeep:
            Expectation(location: .infoPlist, key: "Info.plist", reason: "nested deeper than")
        }
    }

    /// `/bin/true` after `realpath`, since `/bin` is a link to `/usr/bin` on merged-/usr systems.
    static var realBinTrue: String {
        URL(fileURLWithPath: "/bin/true").resolvingSymlinksInPath().path
    }

    /// Makes the broken bundle in `fixture.directory`.
    func make(in fixture: BundleFixture) throws {
        let valid = InfoPlistText.valid(identifier: identifier)
        let bundle = fixture.path(bundleName)
        let executable = bundle + "/" + BundleFixture.executableName

        func withPlist(_ plist: InfoPlistText) throws {
            try fixture.makeBundle(bundleName, plist: plist.data)
        }
        func withBytes(_ bytes: Data) throws {
            try fixture.makeBundle(bundleName, plist: bytes)
        }

        switch self {
        case .missingIdentifier: try withPlist(valid.removing("CFBundleIdentifier"))
        case .missingName: try withPlist(valid.removing("CFBundleName"))
        case .missingExecutableKey: try withPlist(valid.removing("CFBundleExecutable"))
        case .modesAsString: try withPlist(valid.setting("UIBackgroundModes", .string("audio")))
        case .exitsOnSuspendAsString: try withPlist(valid.setting("UIApplicationExitsOnSuspend", .string("YES")))
        case .identifierAsInteger: try withPlist(valid.setting("CFBundleIdentifier", .integer(42)))
        case .identifierWithSlash: try withPlist(valid.setting("CFBundleIdentifier", .string("org.example/../evil")))
        case .blankName: try withPlist(valid.setting("CFBundleName", .string("  \t ")))
        case .unknownMode: try withPlist(valid.setting("UIBackgroundModes", .strings(["audio", "teleport"])))
        case .locationWithoutUsageDescription:
            try withPlist(valid.setting("UIBackgroundModes", .strings(["location"])))
        case .absoluteExecutable: try withPlist(valid.setting("CFBundleExecutable", .string("/bin/true")))
        case .executableEscapesWithDotDot:
            // A real executable waits outside, so only the '..' rule can stop it.
            try fixture.write(BundleFixture.script, to: fixture.path("outside-tool"), mode: 0o755)
            try withPlist(valid.setting("CFBundleExecutable", .string("../outside-tool")))
        case .executableMissing:
            try fixture.makeBundle(bundleName, plist: valid.data, executable: nil)
        case .executableNotExecutable:
            try withPlist(valid)
            try fixture.setMode(0o644, of: executable)
        case .executableGroupWritable:
            try withPlist(valid)
            try fixture.setMode(0o775, of: executable)
        case .executableLinksOutside:
            try fixture.makeBundle(bundleName, plist: valid.data, executable: nil)
            try fixture.makeSymbolicLink(executable, to: "/bin/true")
        case .executableLinkDangles:
            try fixture.makeBundle(bundleName, plist: valid.data, executable: nil)
            try fixture.makeSymbolicLink(executable, to: "nothing-here")
        case .executableIsDirectory:
            try fixture.makeBundle(bundleName, plist: valid.data, executable: nil)
            try fixture.makeDirectory(executable)
        case .bundleWorldWritable:
            try withPlist(valid)
            try fixture.setMode(0o777, of: bundle)
        case .bundleIsAFile:
            try fixture.write(valid.data, to: bundle, mode: 0o644)
        case .infoPlistGroupWritable:
            try withPlist(valid)
            try fixture.setMode(0o664, of: bundle + "/Info.plist")
        case .infoPlistMissing:
            try fixture.makeBundle(bundleName, plist: nil)
        case .infoPlistIsDirectory:
            try fixture.makeBundle(bundleName, plist: nil)
            try fixture.makeDirectory(bundle + "/Info.plist")
        case .infoPlistNotAPropertyList: try withBytes(Data("hello world".utf8))
        case .infoPlistEmpty: try withBytes(Data())
        case .infoPlistHuge:
            // Well-formed XML, refused for its size alone.
            try withPlist(valid.setting("Padding", .string(String(repeating: "x", count: 300 * 1024))))
        case .infoPlistGarbageBinary:
            var generator = SeededGenerator(seed: 0xB0B1157)
            let garbage = (0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            try withBytes(Data("bplist00".utf8) + Data(garbage))
        case .infoPlistTopLevelArray:
            let xml = """
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0">
                <array><string>CFBundleIdentifier</string><string>\(identifier)</string></array>
                </plist>

                """
            try withBytes(Data(xml.utf8))
        case .infoPlistNestedTooDeep:
            // Deep enough to pass any sane limit, too shallow to crash the parser without one.
            let nested = String(repeating: "<array>", count: 200) + String(repeating: "</array>", count: 200)
            try withPlist(valid.setting("Nested", .raw(nested)))
        }
    }
}
