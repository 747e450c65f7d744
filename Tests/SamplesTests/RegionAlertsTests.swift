import BackgroundKit
import BackgrounderTestSupport
import Foundation
import Testing

@testable import RegionAlerts

@Suite("RegionAlerts", .timeLimit(.minutes(5)))
struct RegionAlertsTests {
    private static func region(_ identifier: String, radius: Double = 100) -> CircularRegion {
        CircularRegion(identifier: identifier, center: Coordinate(latitude: 46.9, longitude: 7.4), radius: radius)
    }

    @Test("syncing starts new and changed regions, stops dropped ones, leaves identical ones alone")
    func sync() {
        let plan = RegionSync(
            wanted: [Self.region("new"), Self.region("changed", radius: 250), Self.region("same")],
            monitored: [Self.region("changed"), Self.region("same"), Self.region("gone"), Self.region("also gone")])
        #expect(plan.start == [Self.region("new"), Self.region("changed", radius: 250)])
        #expect(plan.stop == [Self.region("also gone"), Self.region("gone")])
        #expect(plan.unchanged == 1)
        #expect(RegionSync(wanted: [Self.region("same")], monitored: [Self.region("same")]).isEmpty)
        #expect(RegionSync(wanted: [], monitored: [Self.region("x")]).stop == [Self.region("x")])
    }

    @Test("each region gets a location trigger per direction it notifies; only changed ones are added again")
    func notificationPlans() {
        var quiet = Self.region("home")
        quiet.notifyOnExit = false
        let plans = RegionNotifications.plans(for: [Self.region("work"), quiet])
        #expect(plans.map(\.identifier) == ["enter work", "exit work", "enter home"])
        #expect(plans[0].region.notifyOnEntry && !plans[0].region.notifyOnExit)
        #expect(!plans[1].region.notifyOnEntry && plans[1].region.notifyOnExit)
        #expect(plans[1].title == "Left work")
        let pending: [(identifier: String, region: CircularRegion?)] = [
            ("enter work", plans[0].region), ("exit work", Self.region("work", radius: 5)), ("exit gone", nil),
            ("someone else's", nil),
        ]
        let changes = RegionNotifications.changes(wanted: plans, pending: pending)
        #expect(changes.add.map(\.identifier) == ["exit work", "enter home"])
        #expect(changes.remove == ["exit gone"])
    }

    @Test("an alert is one line: UTC time with milliseconds, enter or exit, the identifier; on disk once written")
    func alertLog() throws {
        let directory = try TemporaryDirectory(prefix: "ra")
        defer { directory.remove() }
        let enter = AlertLog.line(time: 1_718_003_600.5, .enter, "Büro Bern")
        let exit = AlertLog.line(time: 1_718_007_200, .exit, "home")
        #expect(enter == "2024-06-10T07:13:20.500Z enter Büro Bern")
        #expect(exit == "2024-06-10T08:13:20.000Z exit home")
        let log = AlertLog(path: directory.appending("alerts.log"))
        try log.append(enter)
        try log.append(exit)
        #expect(try String(contentsOfFile: log.path, encoding: .utf8) == enter + "\n" + exit + "\n")
        #expect(throws: AlertLogError.self) {
            try AlertLog(path: directory.appending("missing/alerts.log")).append(exit)
        }
    }

    @Test("arguments parse into commands; negative coordinates are values, not options")
    func parsing() throws {
        #expect(
            try RegionCommandLine(["add", "harbour", "-33.86", "-151.2", "300", "--state-dir", "/s"])
                == RegionCommandLine(
                    action: .add(identifier: "harbour", latitude: "-33.86", longitude: "-151.2", radius: "300"),
                    stateDirectory: "/s"))
        #expect(try RegionCommandLine(["import", "places.geojson"]).action == .importFile("places.geojson"))
        #expect(throws: RegionCommandLine.UsageError(description: "add takes ID LAT LON RADIUS")) {
            try RegionCommandLine(["add", "x", "1", "2"])
        }
        #expect(throws: RegionCommandLine.UsageError(description: "unknown option --all")) {
            try RegionCommandLine(["list", "--all"])
        }
    }

    @Test("import, add, remove, list and log through the built program, with exit 64 and 65 for mistakes")
    func commands() async throws {
        let directory = try TemporaryDirectory(prefix: "rcl")
        defer { directory.remove() }
        let program = Locations.product("RegionAlerts")
        let state = ["--state-dir", directory.path]
        let files = RegionFiles(directory: directory.appending("data/\(RegionFiles.bundleIdentifier)"))
        let hint =
            "run `bgctl open org.backgrounder.samples.regionalerts` once so the app hands the regions to the daemon"

        let places = directory.appending("places.geojson")
        let text = #"""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [7.4474, 46.948]},
               "properties": {"id": "home", "radius": 150}},
              {"type": "Feature", "geometry": {"type": "Point", "coordinates": [7.44, 46.95]},
               "properties": {"name": "office", "radius": "big"}}]}
            """#
        try Data(text.utf8).write(to: URL(fileURLWithPath: places))
        let bad = try await runProgram(program, ["import", places] + state, in: directory)
        #expect(bad.status == 65)
        #expect(
            bad.output == "RegionAlerts: \(places): feature 1: properties.radius: must be a number of metres between 1 "
                + "and 100000, not \"big\"\n")
        #expect(!FileManager.default.fileExists(atPath: files.regions))

        try Data(text.replacingOccurrences(of: #""big""#, with: "80").utf8).write(to: URL(fileURLWithPath: places))
        let imported = try await runProgram(program, ["import", places] + state, in: directory)
        #expect(imported.status == 0)
        #expect(imported.output == "imported 2 regions from \(places) into \(files.regions)\n\(hint)\n")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: files.regions)) == Data(contentsOf: URL(fileURLWithPath: places)))

        let added = try await runProgram(program, ["add", "harbour", "-33.86", "151.2", "300"] + state, in: directory)
        #expect(added.status == 0)
        #expect(added.output.hasPrefix("added harbour; 3 regions in \(files.regions)\n"))
        let outOfRange = try await runProgram(program, ["add", "pole", "91", "0", "300"] + state, in: directory)
        #expect(outOfRange.status == 65)
        #expect(outOfRange.output == "RegionAlerts: add: LAT: must be a latitude between -90 and 90, not 91\n")
        let notANumber = try await runProgram(program, ["add", "pole", "north", "0", "300"] + state, in: directory)
        #expect(notANumber.status == 64)

        let removed = try await runProgram(program, ["remove", "office"] + state, in: directory)
        #expect(removed.status == 0)
        let missing = try await runProgram(program, ["remove", "office"] + state, in: directory)
        #expect(missing.status == 65)

        let list = try await runProgram(program, ["list"] + state, in: directory)
        #expect(
            list.output == "home     46.948000, 7.447400  150 m  enter, exit\n"
                + "harbour  -33.860000, 151.200000  300 m  enter, exit\n")

        let noLog = try await runProgram(program, ["log"] + state, in: directory)
        #expect(noLog.output == "no alerts yet (\(files.alerts))\n")
        try AlertLog(path: files.alerts).append("2024-06-10T07:13:20.500Z enter home")
        let log = try await runProgram(program, ["log"] + state, in: directory)
        #expect(log.output == "2024-06-10T07:13:20.500Z enter home\n")

        let usage = try await runProgram(program, ["frobnicate"], in: directory)
        #expect(usage.status == 64)
        #expect(usage.output.hasPrefix("RegionAlerts: unknown command frobnicate\nusage: RegionAlerts import"))
    }
}
