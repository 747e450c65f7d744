import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Transfers: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Background downloads and uploads: state and why each waits, progress, rate and time left.",
        discussion: """
            With a transfer's number, every field of that transfer (retries, bytes fetched again, \
            the last error, the response, the file). With an app's bundle identifier, its transfers. \
            --watch redraws every second until interrupted, or until every transfer shown has finished \
            (then it exits 0).
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(
        help: "A transfer's number, or an app's bundle identifier (default: every transfer).",
        completion: .bundleIdentifier)
    var id: String?
    @Flag(help: "Redraw every second until every transfer shown has finished.") var watch = false

    func validate() throws {
        if watch && options.json { throw ValidationError("--watch draws for people: leave out --json, or --watch") }
    }

    /// A number names one transfer; anything else an app.
    private var query: TransferQuery {
        guard let id else { return TransferQuery() }
        if let number = Int(id) { return TransferQuery(transfer: number) }
        return TransferQuery(bundle: id)
    }

    func run() throws {
        guard watch else {
            let list = try fetch()
            if options.json {
                try options.printJSON(list)
            } else if let number = query.transfer, list.transfers.isEmpty {
                printError("bgctl: no transfer \(number)")
                throw ExitCode.failure
            } else {
                print(render(list))
            }
            return
        }
        while true {
            let list = try fetch()
            // Home and clear, then the whole view: one unbuffered write, so the screen does not
            // flicker and a pipe sees each frame as it comes.
            FileHandle.standardOutput.write(Data(("\u{1B}[H\u{1B}[2J" + render(list) + "\n").utf8))
            if TransferInfo.allFinished(list.transfers) { return }
            Thread.sleep(forTimeInterval: 1)
        }
    }

    private func fetch() throws -> TransferList {
        guard case .transferList(let list) = try options.request(.transfers(query)) else {
            throw ValidationError("unexpected reply")
        }
        return list
    }

    private func render(_ list: TransferList) -> String {
        let now = Date()
        if query.transfer != nil, let only = list.transfers.first, list.transfers.count == 1 {
            return table(only.detailRows(now: now).map { [$0[0] + ":", $0[1]] })
        }
        guard !list.transfers.isEmpty else { return "no transfers" }
        return table([TransferInfo.tableHeader] + list.transfers.map { $0.tableRow(now: now) })
    }
}
