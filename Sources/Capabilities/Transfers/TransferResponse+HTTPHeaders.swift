import BackgrounderAppCore
package import BackgrounderProtocol
import BackgrounderSystem
package import NIOHTTP1

extension TransferResponse {
    /// A response as the app hears it: header names lower-cased, repeated headers joined
    /// with `, ` (RFC 9110's list form).
    package init(status: Int, headers: HTTPHeaders, url: String) {
        var joined: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            joined[key] = joined[key].map { $0 + ", " + value } ?? value
        }
        self.init(status: status, headers: joined, url: url)
    }
}
