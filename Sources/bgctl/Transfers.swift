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

            Examples:
              bgctl transfers
              bgctl transfers podcasts --watch
              bgctl transfers 3 --json
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(
        help: ArgumentHelp(
            "A transfer's number, or an app: its bundle identifier, a unique suffix or its name (default: every transfer).",
            valueName: "id"),
        completion: .bundleIdentifier)
    var id: String?
    @Flag(help: "Redraw every second until every transfer shown has finished.") var watch = false

    func validate() throws {
        if watch && options.json { throw ValidationError("--watch draws for people: leave out --json, or --watch") }
    }

    /// A number names one transfer; anything else an app.
    private func query() throws -> TransferQuery {
        guard let id else { return TransferQuery() }
        if let number = Int(id) { return TransferQuery(transfer: number) }
        return TransferQuery(bundle: try options.resolveBundle(id))
    }

    func run() throws {
        let query = try query()
        guard watch else {
            let list = try fetch(query)
            if options.json {
                try options.printJSON("transfers", list.transfers)
            } else if let number = query.transfer, list.transfers.isEmpty {
                throw Failure(
                    code: "notFound", message: "no transfer \(number); `bgctl transfers` lists them", exitStatus: 1)
            } else {
                print(render(list, query))
            }
            return
        }
        while true {
            let list = try fetch(query)
            // Home and clear, then the whole view: one unbuffered write, so the screen does not
            // flicker and a pipe sees each frame as it comes.
            FileHandle.standardOutput.write(Data(("\u{1B}[H\u{1B}[2J" + render(list, query) + "\n").utf8))
            if TransferInfo.allFinished(list.transfers) { return }
            Thread.sleep(forTimeInterval: 1)
        }
    }

    private func fetch(_ query: TransferQuery) throws -> TransferList {
        guard case .transferList(let list) = try options.request(.transfers(query)) else {
            throw Failure.unexpectedReply
        }
        return list
    }

    private func render(_ list: TransferList, _ query: TransferQuery) -> String {
        let now = Date()
        if query.transfer != nil, let only = list.transfers.first, list.transfers.count == 1 {
            return table(only.detailRows(now: now).map { [$0[0] + ":", $0[1]] })
        }
        guard !list.transfers.isEmpty else { return "no transfers" }
        return table([TransferInfo.tableHeader] + list.transfers.map { $0.tableRow(now: now) })
    }
}
