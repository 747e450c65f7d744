// Fuzz target `gpsd`: what a gpsd (or anything listening where the daemon looks for one)
// sends, as the daemon reads it. `GPSDConnection` cuts the stream into lines and hands each,
// NUL-terminated, to `cgps_unpack_line` (Sources/CGPS/shim.h): `gps_unpack`'s loop over
// libgps's JSON parser, `libgps_json_unpack` (TPV, SKY, VERSION, DEVICES, WATCH, POLL, AIS...),
// the system's libgps that the daemon links. After each line that set a fix mode,
// `GPSDConnection.report(from:)` turns the `gps_data_t` into a `Location`, which goes where the
// daemon sends fixes: the deduplicator and the region monitor (`LocationCapability.fix`).
//
// Until this target found it, the daemon let libgps's `gps_read` parse with `gps_unpack`,
// which loops for ever on lines such as `{x"class":"TPV"` (see `cgps_unpack_line`); libFuzzer
// reports such a line as a timeout.
//
// libgps itself is not instrumented (Debian ships it built): coverage guides the fuzzer
// through the harness and the Swift side only, and AddressSanitizer sees libgps's string and
// memory calls (its interceptors), not its every access.

import BackgrounderCore
@_private(sourceFile: "GPSDConnection.swift") import BackgrounderLocation
import CGPS
import Foundation

/// The longest line libgps passes on: its read buffer is twice `GPS_JSON_RESPONSE_MAX`, which
/// is 10240 in gpsd 3.22's `gps_json.h` (a header Debian does not install).
let longestLine = 2 * 10_240 - 1

/// Regions around the seeds' walk, so fixes near it make transitions.
let regions = [
    CircularRegion(
        identifier: "hut", center: Coordinate(latitude: 46.36, longitude: 14.09), radius: 150,
        notifyOnEntry: true, notifyOnExit: true),
    CircularRegion(
        identifier: "valley", center: Coordinate(latitude: 46.3, longitude: 14.0), radius: 20_000,
        notifyOnEntry: true, notifyOnExit: true),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGPSD(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    // One connection's state: gps_open zeroes it, and it carries over from line to line.
    let data = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
    data.initialize(to: gps_data_t())
    defer { data.deallocate() }
    var deduplicator = FixDeduplicator()
    var monitor = RegionMonitor()
    for region in regions {
        try? monitor.add(region, owner: .app("org.example.fuzz"))
    }

    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        guard line.count <= longestLine else { continue }
        // Exactly the line and its NUL, so an overread runs into AddressSanitizer's red zone.
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: line.count + 1)
        defer { buffer.deallocate() }
        for (index, byte) in line.enumerated() { buffer[index] = CChar(bitPattern: byte) }
        buffer[line.count] = 0
        // What GPSDConnection.read() does with a line: libgps's parser, then the conversion.
        cgps_unpack_line(buffer, data)
        guard cgps_has_mode(data) else { continue }
        guard case .fix(let location) = GPSDConnection.report(from: data.pointee) else { continue }
        check(location)
        if deduplicator.accept(location) {
            for transition in monitor.offer(location) {
                precondition(transition.from != transition.to, "a transition to the same state: \(transition)")
            }
        }
    }
    return 0
}

/// What the daemon may assume of a fix: a position, and no NaN or infinity among the rest.
func check(_ location: Location) {
    precondition(!location.coordinate.latitude.isNaN && !location.coordinate.longitude.isNaN, "\(location)")
    for value in [
        location.altitude, location.horizontalAccuracy, location.verticalAccuracy, location.speed, location.course,
    ] {
        if let value { precondition(value.isFinite, "a non-finite field in \(location)") }
    }
    precondition(location.timestamp > 0, "a fix before 1970: \(location)")
    precondition(location.fixMode != .noFix, "a fix without a fix mode: \(location)")
}
