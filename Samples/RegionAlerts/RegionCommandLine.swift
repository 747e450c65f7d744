/// What a person asked `RegionAlerts` to do on the command line.
struct RegionCommandLine: Equatable {
    /// The commands.
    enum Action: Equatable {
        /// Check a GeoJSON file and make it the app's regions.
        case importFile(String)
        /// Add a region, or replace the one with the same identifier.
        case add(identifier: String, latitude: String, longitude: String, radius: String)
        /// Remove a region.
        case remove(String)
        /// Print the regions.
        case list
        /// Print the alert log.
        case log
        /// Print the usage.
        case help
    }

    /// What to do.
    var action: Action
    /// The daemon's `--state-dir`, when not the default.
    var stateDirectory: String?

    /// The usage, for `help` and for mistakes.
    static let usage = """
        usage: RegionAlerts import FILE.geojson [--state-dir DIR]
                   check a FeatureCollection of Point features (properties: id or name, radius in metres,
                   notifyOnEntry, notifyOnExit) and make it the regions
               RegionAlerts add ID LAT LON RADIUS [--state-dir DIR]
                   add a region (degrees, metres), replacing one with the same ID
               RegionAlerts remove ID [--state-dir DIR]
               RegionAlerts list [--state-dir DIR]
               RegionAlerts log [--state-dir DIR]
                   print the alerts raised so far
        The app's files are where the daemon on BACKGROUNDER_SOCKET (else the default socket) says;
        --state-dir DIR reads the state directory DIR instead, without asking.
        Without arguments it is the app, which backgrounderd launches (bgctl open \(RegionFiles.bundleIdentifier));
        monitoring needs `bgctl authorize \(RegionFiles.bundleIdentifier) location always`.
        examples:
          RegionAlerts add corner 46.0517 14.5028 30
          RegionAlerts import ~/places.geojson && bgctl open \(RegionFiles.bundleIdentifier)
        exit status: 0 done, 64 usage, 65 not a valid regions file or region, 66 no such file,
        69 no daemon to say where the files are, 74 a file cannot be read or written
        """

    /// A mistake on the command line.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        /// What was wrong.
        var description: String
    }
}

extension RegionCommandLine {
    /// Reads the arguments.
    /// - Parameter arguments: The arguments after the program's name.
    /// - Throws: ``UsageError`` naming what is wrong.
    init(_ arguments: [String]) throws(UsageError) {
        var words: [String] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--state-dir" {
                guard let value = remaining.popFirst(), !value.isEmpty else {
                    throw UsageError(description: "--state-dir needs a value")
                }
                stateDirectory = value
            } else if argument.hasPrefix("--state-dir=") {
                stateDirectory = String(argument.dropFirst("--state-dir=".count))
            } else if argument == "-h" || argument == "--help" {
                words.append("help")
            } else if argument.hasPrefix("-"), argument.count > 1, !argument.dropFirst().first!.isNumber,
                !argument.hasPrefix("-.")
            {
                // A negative latitude or longitude (-33.9) is a value, not an option.
                throw UsageError(description: "unknown option \(argument)")
            } else {
                words.append(argument)
            }
        }
        guard let command = words.first else { throw UsageError(description: "no command") }
        let operands = Array(words.dropFirst())
        switch (command, operands.count) {
        case ("import", 1): action = .importFile(operands[0])
        case ("add", 4):
            action = .add(identifier: operands[0], latitude: operands[1], longitude: operands[2], radius: operands[3])
        case ("remove", 1): action = .remove(operands[0])
        case ("list", 0): action = .list
        case ("log", 0): action = .log
        case ("help", 0): action = .help
        case ("import", _): throw UsageError(description: "import takes one FILE")
        case ("add", _): throw UsageError(description: "add takes ID LAT LON RADIUS")
        case ("remove", _): throw UsageError(description: "remove takes one ID")
        case ("list", _), ("log", _), ("help", _): throw UsageError(description: "\(command) takes no arguments")
        default: throw UsageError(description: "unknown command \(command)")
        }
    }
}
