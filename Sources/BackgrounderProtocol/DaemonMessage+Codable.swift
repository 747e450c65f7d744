extension DaemonMessage: Codable {
    /// Every reply and notice class: the one place a wire name is written. A new message is
    /// a `Body` case and a line here; see ``MessageClasses`` for how coding finds the line.
    static let classes = MessageClasses<Body>([
        MessageClass("VERSION", Body.version),
        MessageClass("HELLO", Body.hello),
        MessageClass("STATUS", Body.status),
        MessageClass("BUNDLES", Body.bundles),
        MessageClass("RELOAD", Body.reload),
        MessageClass("ERROR", Body.error),
        MessageClass("OK", Body.done),
        MessageClass("APPS", Body.apps),
        MessageClass("CAPABILITIES", Body.capabilities),
        MessageClass("CHECKIN", Body.checkedIn),
        MessageClass("TASK", Body.task),
        MessageClass("LIFECYCLE", Body.lifecycle),
        MessageClass("EXPIRE", Body.expire),
        MessageClass("EVENT", Body.event),
        MessageClass("AUTHORIZATION", Body.authorization),
        MessageClass("LOCATIONS", Body.locations),
        MessageClass("REGION_STATE", Body.regionState),
        MessageClass("REGIONS", Body.regions),
        MessageClass("LOCATION_STATUS", Body.locationStatus),
        MessageClass("AUDIO_STREAM", Body.audioStream),
        MessageClass("AUDIO_INTERRUPTION", Body.audioInterruption),
        MessageClass("AUDIO_ROUTE_CHANGE", Body.audioRouteChange),
        MessageClass("REMOTE_COMMAND", Body.remoteCommand),
        MessageClass("AUDIO_STATUS", Body.audioStatus),
        MessageClass("PERMISSIONS", Body.permissions),
        MessageClass("TASK_REQUESTS", Body.taskRequests),
        MessageClass("PUSH_TOKEN", Body.pushToken),
        MessageClass("PUSHED", Body.pushed),
        MessageClass("SCHEDULE", Body.schedule),
        MessageClass("BACKGROUND_TIME", Body.backgroundTime),
        MessageClass("MEMORY_WARNING", Body.memoryWarning),
        MessageClass("TRANSFER", Body.transfer),
        MessageClass("TRANSFER_LIST", Body.transferList),
        MessageClass("TRANSFER_UPDATE", Body.transferUpdate),
        MessageClass("DATA_DIRECTORY", Body.dataDirectory),
        MessageClass("NOTIFICATION_AUTHORIZATION", Body.notificationAuthorization),
        MessageClass("NOTIFICATIONS", Body.notifications),
        MessageClass("NOTIFICATION_WILL_PRESENT", Body.notificationWillPresent),
        MessageClass("NOTIFICATION_RESPONSE", Body.notificationResponse),
        MessageClass("IMPORTED", Body.imported),
        MessageClass("SHARED", Body.shared),
        MessageClass("NOTIFICATION_DELIVERED", Body.notificationDelivered),
        MessageClass("PROMPTS", Body.prompts),
        MessageClass("MEDIA_LIBRARY", Body.mediaLibrary),
    ])

    public init(from decoder: any Decoder) throws {
        let header = try decoder.container(keyedBy: MessageHeaderKeys.self)
        let className = try header.decode(String.self, forKey: .class)
        id = try header.decodeIfPresent(MessageID.self, forKey: .id)
        guard let messageClass = Self.classes.named(className) else {
            throw ProtocolError(.unknownClass, "unknown class '\(className)' from the daemon")
        }
        body = try messageClass.decode(decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try Self.classes.encode(body, id: id, to: encoder)
    }
}
