extension ResponsePlan {
    /// Decides the answer to a `GET` or `HEAD` (any other method gets 405).
    /// - Parameters:
    ///   - method: The request's method.
    ///   - path: The path, without its query.
    ///   - headers: The request's headers, names in lower case.
    ///   - document: The document at the path, if any.
    ///   - faults: The faults that apply to this request.
    static func answer(
        method: String, path: String, headers: [String: String], document: Document?,
        faults: [TransferServer.Fault]
    ) -> ResponsePlan {
        var plan =
            replacement(path: path, document: document, faults: faults) ?? served(method, headers, document!, faults)
        if method == "HEAD" { plan.body = .none }
        if method != "GET" && method != "HEAD" {
            plan = .text(405, "\(method) is not served here: GET and HEAD (PUT and POST under /upload/)\n")
            plan.headers.append(("Allow", "GET, HEAD"))
        }
        return plan
    }

    /// An answer instead of the document: a status or redirect fault, or 404.
    private static func replacement(path: String, document: Document?, faults: [TransferServer.Fault])
        -> ResponsePlan?
    {
        for fault in faults {
            switch fault {
            case .status(let status, let retryAfter):
                return .text(
                    status, "status \(status) by fault injection\n",
                    headers: retryAfter.map { [("Retry-After", "\($0)")] } ?? [])
            case .redirect(let location, let status):
                return .text(status, "see \(location)\n", headers: [("Location", location)])
            default:
                continue
            }
        }
        return document == nil ? .text(404, "no document at \(path)\n") : nil
    }

    private static func served(
        _ method: String, _ headers: [String: String], _ document: Document, _ faults: [TransferServer.Fault]
    ) -> ResponsePlan {
        let ignoresRange = faults.contains(.ignoreRange)
        var range = ignoresRange ? .whole : RangeRequest(header: headers["range"], total: document.size)
        if let ifRange = headers["if-range"], !document.matches(ifRange: ifRange) {
            range = .whole  // another version: the whole of the new one (RFC 9110 §13.1.5)
        }
        var plan = ResponsePlan(status: 200)
        plan.headers = [("ETag", document.etag), ("Last-Modified", document.lastModified)]
        // A server that ignores ranges does not claim to take them.
        if !ignoresRange { plan.headers.append(("Accept-Ranges", "bytes")) }
        let offset: Int64
        let length: Int64
        switch range {
        case .unsatisfiable:
            var refused = ResponsePlan.text(416, "range not satisfiable: the document has \(document.size) bytes\n")
            refused.headers += plan.headers + [("Content-Range", "bytes */\(document.size)")]
            return refused
        case .part(let first, let last):
            plan.status = 206
            plan.headers.append(("Content-Range", "bytes \(first)-\(last)/\(document.size)"))
            (offset, length) = (first, last - first + 1)
        case .whole:
            (offset, length) = (0, document.size)
        }
        plan.headers.append(("Content-Type", document.contentType))
        // Without Content-Length, NIO's encoder sends an HTTP/1.1 body chunked.
        if !faults.contains(.noLength) { plan.headers.append(("Content-Length", "\(length)")) }
        plan.body = .document(document.body, offset: offset, length: length)
        plan.applyBodyFaults(faults, length: length)
        return plan
    }

    /// Drip, cuts, stalls and overruns; of several stops the earliest wins.
    private mutating func applyBodyFaults(_ faults: [TransferServer.Fault], length: Int64) {
        var stop: Ending?
        func consider(_ ending: Ending, at bytes: Int64) {
            guard bytes < length else { return }  // a stop at or past the end changes nothing
            switch stop {
            case .close(let after)?, .stall(let after)?:
                if bytes < after { stop = ending }
            default:
                stop = ending
            }
        }
        for fault in faults {
            switch fault {
            case .drip(let rate):
                bytesPerSecond = max(1, min(rate, bytesPerSecond ?? .max))
            case .cutAfter(let bytes):
                consider(.close(after: max(0, bytes)), at: max(0, bytes))
            case .shortBody(let missing) where missing > 0:
                consider(.close(after: max(0, length - missing)), at: max(0, length - missing))
            case .stallAfter(let bytes):
                consider(.stall(after: max(0, bytes)), at: max(0, bytes))
            default:
                continue
            }
        }
        if let stop {
            ending = stop
        } else if let extra = faults.lazy.compactMap({ if case .longBody(let extra) = $0 { extra } else { nil } }).first
        {
            ending = .overrun(extra: max(0, extra))
        }
    }
}
