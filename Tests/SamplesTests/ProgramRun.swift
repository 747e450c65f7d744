import BackgrounderTestSupport
import Foundation
import Testing

/// Runs a program to its end, as a person at a shell would.
/// - Parameters:
///   - executable: The program's path.
///   - arguments: Its arguments.
///   - directory: Where its output is kept.
///   - environment: Extra environment variables.
/// - Returns: Its exit status and everything it printed (standard output and error together).
func runProgram(
    _ executable: String, _ arguments: [String], in directory: TemporaryDirectory, environment: [String: String] = [:]
) async throws -> (status: Int32?, output: String) {
    let name = (executable as NSString).lastPathComponent
    let process = try ChildProcess(
        executable, arguments, environment: environment,
        logPath: directory.appending("\(name)-\(UUID().uuidString.prefix(6)).log"))
    #expect(await process.waitForExit(timeout: .seconds(60)))
    return (process.terminationStatus, process.output)
}
