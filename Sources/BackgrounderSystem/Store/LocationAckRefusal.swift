/// Why a `LOCATION_ACK` was refused; nothing was forgotten.
package enum LocationAckRefusal: Error, Equatable, CustomStringConvertible {
    /// The app acknowledged past the last event it was sent.
    case notDelivered(through: Int64, deliveredThrough: Int64)
    /// The sequence number is another app's event.
    case notOwn(through: Int64)

    package var description: String {
        switch self {
        case .notDelivered(let through, 0):
            return
                "LOCATION_ACK through \(through): no location events were delivered on this connection; nothing forgotten"
        case .notDelivered(let through, let delivered):
            return "LOCATION_ACK through \(through): events were delivered only through \(delivered) on this "
                + "connection; nothing forgotten"
        case .notOwn(let through):
            return "LOCATION_ACK through \(through): that event is not one of this app's; nothing forgotten"
        }
    }
}
