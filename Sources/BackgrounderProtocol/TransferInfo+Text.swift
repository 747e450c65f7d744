import BackgrounderCore
public import Foundation

extension TransferInfo {
    /// The header of `bgctl transfers`' table, matching ``tableRow(now:)``.
    public static let tableHeader = ["ID", "APP", "KIND", "STATE", "PROGRESS", "BYTES", "RATE", "ETA"]

    /// One row of `bgctl transfers`: identifier, app, kind, state with why it waits, progress
    /// bar (when the size is known), bytes, rate and time left. Cells are not escaped here:
    /// the table escapes every cell.
    public func tableRow(now: Date) -> [String] {
        let (done, total) = progress
        let bar = total > 0 ? TransferText.progressBar(done: done, total: total) ?? "-" : "-"
        let bytes =
            total > 0 ? "\(ByteCountText.string(done)) / \(ByteCountText.string(total))" : ByteCountText.string(done)
        let moving = state == .running
        return [
            String(id), bundle.rawValue, request.kind.rawValue, stateText(now: now), bar, bytes,
            moving ? ByteCountText.rate(rate) : "-",
            moving && total > 0 ? TransferText.eta(remaining: total - done, bytesPerSecond: rate) : "-",
        ]
    }

    /// The state column: `waiting (retry in 8s: connection reset)`, `completed (HTTP 404)`.
    public func stateText(now: Date) -> String {
        TransferText.state(
            state, waitingFor: waitingFor, status: response?.status,
            retryIn: retryAt.map { $0 - now.timeIntervalSince1970 },
            beginsIn: request.earliestBeginDate.map { $0 - now.timeIntervalSince1970 }, lastError: lastError)
    }

    /// Every field, one `name: value` pair a line, for `bgctl transfers ID`. Values are not
    /// escaped here: the caller's table escapes every cell.
    public func detailRows(now: Date) -> [[String]] {
        let (done, total) = progress
        var rows: [[String]] = [
            ["id", String(id)],
            ["app", bundle.rawValue],
            ["session", request.session],
            ["kind", request.kind.rawValue],
            ["url", request.url],
            ["method", request.method ?? (request.kind == .download ? "GET" : "POST")],
            ["state", stateText(now: now)],
        ]
        if let description = request.taskDescription { rows.append(["description", description]) }
        if let file = request.file { rows.append(["file", file]) }
        rows.append(["discretionary", request.discretionary == true ? "yes" : "no"])
        if let date = request.earliestBeginDate { rows.append(["earliest begin", Self.timestamp(date)]) }
        rows.append(["created", Self.timestamp(created)])
        let sizes = total > 0 ? "\(done) of \(total) bytes" : "\(done) bytes, total unknown"
        rows.append(["progress", (TransferText.progressBar(done: done, total: total).map { $0 + ", " } ?? "") + sizes])
        if request.kind == .upload { rows.append(["received", "\(bytesReceived) bytes"]) }
        if let rate, state == .running {
            rows.append(["rate", ByteCountText.rate(rate)])
            if total > 0 {
                rows.append(["time left", TransferText.eta(remaining: total - done, bytesPerSecond: rate)])
            }
        }
        rows.append(["retries", String(retries)])
        if let retryAt { rows.append(["next retry", Self.timestamp(retryAt)]) }
        rows.append(["bytes re-fetched", "\(bytesRefetched) (\(ByteCountText.string(bytesRefetched)))"])
        if let lastError { rows.append(["last error", lastError]) }
        if let response {
            rows.append(["response", "HTTP \(response.status) from \(response.url)"])
            for name in response.headers.keys.sorted() {
                rows.append(["  " + name, response.headers[name] ?? ""])
            }
        }
        if let error { rows.append(["error", error.description]) }
        if let location { rows.append(["location", location]) }
        return rows
    }

    /// Whether every transfer in a list is finished (`bgctl transfers --watch` stops then).
    public static func allFinished(_ transfers: [TransferInfo]) -> Bool {
        transfers.allSatisfy(\.state.isFinished)
    }

    /// Bytes done and the total (`0` when unknown) in the direction that matters: received
    /// for a download, sent for an upload.
    private var progress: (done: Int64, total: Int64) {
        switch request.kind {
        case .download: (bytesReceived, max(bytesExpectedToReceive, 0))
        case .upload: (bytesSent, max(bytesExpectedToSend, 0))
        }
    }

    private static func timestamp(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
