import BackgroundKit
import Foundation
import SampleSupport

/// Runs what a person asked on the command line. It changes only the files; the app tells the
/// daemon when it next runs, which `bgctl open` makes happen.
enum RegionCommand {
    /// `EX_USAGE`.
    static let usageExit: Int32 = 64
    /// `EX_DATAERR`: a regions file or a region that is not valid.
    static let dataExit: Int32 = 65
    /// `EX_NOINPUT`: a file to import that does not exist.
    static let noInputExit: Int32 = 66
    /// `EX_IOERR`.
    static let ioExit: Int32 = 74

    /// Runs the command line.
    /// - Parameter arguments: The arguments after the program's name.
    /// - Returns: The exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let commandLine: RegionCommandLine
        do {
            commandLine = try RegionCommandLine(arguments)
        } catch {
            complain("RegionAlerts: \(error)\n\(RegionCommandLine.usage)")
            return usageExit
        }
        if commandLine.action == .help {
            say(RegionCommandLine.usage)
            return 0
        }
        do {
            // The person's own file first: its problem is reported before the daemon is asked.
            var imported: (data: Data, file: RegionFile)?
            if case .importFile(let path) = commandLine.action { imported = try readImport(path) }
            // Every other command reads or writes the app's files, so it must know where they are.
            guard let files = RegionFiles.forCommandLine(stateDirectory: commandLine.stateDirectory) else {
                return SampleDataDirectory.unavailableExit
            }
            switch commandLine.action {
            case .help:
                break  // answered above, without asking the daemon
            case .importFile(let path):
                if let imported { try importFile(imported, from: path, into: files) }
            case .add(let identifier, let latitude, let longitude, let radius):
                try add(identifier, latitude, longitude, radius, to: files)
            case .remove(let identifier):
                var file = try files.readRegions()
                guard let smaller = file.removing(identifier) else {
                    complain("RegionAlerts: no region \(JSONValue.string(identifier).quoted) in \(files.regions)")
                    return dataExit
                }
                file = smaller
                try write(file, to: files, saying: "removed \(identifier)")
            case .list:
                list(try files.readRegions(), files)
            case .log:
                guard let text = try? String(contentsOfFile: files.alerts, encoding: .utf8) else {
                    say("no alerts yet (\(files.alerts))")
                    break
                }
                FileHandle.standardOutput.write(Data(text.utf8))
            }
            return 0
        } catch let error as RegionFileError {
            complain("RegionAlerts: \(error)")
            switch error.code {
            case .notFound: return noInputExit
            case .unreadable: return ioExit
            case .notJSON, .invalid: return dataExit
            }
        } catch let error as RegionCommandLine.UsageError {
            complain("RegionAlerts: \(error)\n\(RegionCommandLine.usage)")
            return usageExit
        } catch {
            complain("RegionAlerts: \(error)")
            return ioExit
        }
    }

    /// Reads and checks a file to import.
    private static func readImport(_ path: String) throws(RegionFileError) -> (data: Data, file: RegionFile) {
        guard !path.isEmpty else {
            throw RegionFileError(code: .notFound, file: "''", reason: "an empty path names no file")
        }
        guard let data = try RegionFiles.read(path) else {
            throw RegionFileError(
                code: .notFound, file: path, reason: "cannot read it: \(String(cString: strerror(ENOENT)))")
        }
        return (data, try RegionFile(data: data, file: path))
    }

    private static func importFile(
        _ imported: (data: Data, file: RegionFile), from path: String, into files: RegionFiles
    ) throws {
        let (data, file) = imported
        try FileManager.default.createDirectory(
            atPath: files.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // The person's file as written, with their formatting and extra members.
        try data.write(to: URL(fileURLWithPath: files.regions), options: .atomic)
        say("imported \(file.regions.count) regions from \(path) into \(files.regions)")
        say(syncHint)
    }

    private static func add(
        _ identifier: String, _ latitude: String, _ longitude: String, _ radius: String, to files: RegionFiles
    ) throws {
        guard let latitudeValue = Double(latitude), let longitudeValue = Double(longitude),
            let radiusValue = Double(radius)
        else {
            throw RegionCommandLine.UsageError(description: "LAT and LON must be numbers of degrees, RADIUS of metres")
        }
        func refuse(_ argument: String, _ reason: String) -> RegionFileError {
            RegionFileError(code: .invalid, file: "add", field: argument, reason: reason)
        }
        guard RegionFile.isAcceptableIdentifier(identifier) else {
            throw refuse("ID", "must be \(RegionFile.identifierRule), not \(JSONValue.string(identifier).quoted)")
        }
        guard (-90...90).contains(latitudeValue) else {
            throw refuse("LAT", "must be a latitude between -90 and 90, not \(latitude)")
        }
        guard (-180...180).contains(longitudeValue) else {
            throw refuse("LON", "must be a longitude between -180 and 180, not \(longitude)")
        }
        guard (1...RegionFile.maximumRadius).contains(radiusValue) else {
            throw refuse("RADIUS", "must be \(RegionFile.radiusRule), not \(radius)")
        }
        let region = CircularRegion(
            identifier: identifier, center: Coordinate(latitude: latitudeValue, longitude: longitudeValue),
            radius: radiusValue)
        let current = try files.readRegions()
        let replaced = current.regions.contains { $0.identifier == identifier }
        let file = try current.adding(region, file: files.regions)
        try write(file, to: files, saying: (replaced ? "replaced " : "added ") + identifier)
    }

    private static func write(_ file: RegionFile, to files: RegionFiles, saying message: String) throws {
        try files.writeRegions(file)
        say("\(message); \(file.regions.count) regions in \(files.regions)")
        say(syncHint)
    }

    private static var syncHint: String {
        "run `bgctl open \(RegionFiles.bundleIdentifier)` once so the app hands the regions to the daemon"
    }

    private static func list(_ file: RegionFile, _ files: RegionFiles) {
        guard !file.regions.isEmpty else {
            say(
                "no regions in \(files.regions) (RegionAlerts import FILE.geojson, or RegionAlerts add ID LAT LON RADIUS)"
            )
            return
        }
        let width = file.regions.map(\.identifier.count).max() ?? 0
        for region in file.regions {
            let notify = [region.notifyOnEntry ? "enter" : nil, region.notifyOnExit ? "exit" : nil].compactMap { $0 }
            let padded = region.identifier.padding(toLength: width, withPad: " ", startingAt: 0)
            say(
                "\(padded)  \(String(format: "%.6f, %.6f", region.center.latitude, region.center.longitude))  "
                    + "\(JSONValue.format(region.radius)) m  \(notify.joined(separator: ", "))")
        }
    }
}
