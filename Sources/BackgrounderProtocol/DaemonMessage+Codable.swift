extension DaemonMessage: Codable {
    private enum HeaderKeys: String, CodingKey {
        case `class`, id
    }

    public init(from decoder: any Decoder) throws {
        let header = try decoder.container(keyedBy: HeaderKeys.self)
        let className = try header.decode(String.self, forKey: .class)
        id = try header.decodeIfPresent(MessageID.self, forKey: .id)
        switch className {
        case "VERSION": body = .version(try VersionInfo(from: decoder))
        case "HELLO": body = .hello(try HelloReply(from: decoder))
        case "STATUS": body = .status(try DaemonStatus(from: decoder))
        case "BUNDLES": body = .bundles(try BundleList(from: decoder))
        case "RELOAD": body = .reload(try ReloadResult(from: decoder))
        case "ERROR": body = .error(try ProtocolError(from: decoder))
        case "OK": body = .done(try Done(from: decoder))
        case "APPS": body = .apps(try AppList(from: decoder))
        case "CHECKIN": body = .checkedIn(try CheckInReply(from: decoder))
        case "TASK": body = .task(try TaskReference(from: decoder))
        case "LIFECYCLE": body = .lifecycle(try LifecycleNotice(from: decoder))
        case "EXPIRE": body = .expire(try ExpireTasks(from: decoder))
        case "EVENT": body = .event(try EventNotice(from: decoder))
        case "AUTHORIZATION": body = .authorization(try AuthorizationStatus(from: decoder))
        case "LOCATIONS": body = .locations(try LocationBatch(from: decoder))
        case "REGION_STATE": body = .regionState(try RegionStateReply(from: decoder))
        case "REGIONS": body = .regions(try RegionList(from: decoder))
        case "LOCATION_STATUS": body = .locationStatus(try LocationServiceStatus(from: decoder))
        case "AUDIO_STREAM": body = .audioStream(try AudioStreamGrant(from: decoder))
        case "AUDIO_INTERRUPTION": body = .audioInterruption(try AudioInterruption(from: decoder))
        case "REMOTE_COMMAND": body = .remoteCommand(try RemoteCommandRequest(from: decoder))
        case "AUDIO_STATUS": body = .audioStatus(try AudioStatus(from: decoder))
        default: throw ProtocolError(.unknownClass, "unknown class '\(className)' from the daemon")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var header = encoder.container(keyedBy: HeaderKeys.self)
        try header.encode(className, forKey: .class)
        try header.encodeIfPresent(id, forKey: .id)
        switch body {
        case .version(let payload): try payload.encode(to: encoder)
        case .hello(let payload): try payload.encode(to: encoder)
        case .status(let payload): try payload.encode(to: encoder)
        case .bundles(let payload): try payload.encode(to: encoder)
        case .reload(let payload): try payload.encode(to: encoder)
        case .error(let payload): try payload.encode(to: encoder)
        case .done(let payload): try payload.encode(to: encoder)
        case .apps(let payload): try payload.encode(to: encoder)
        case .checkedIn(let payload): try payload.encode(to: encoder)
        case .task(let payload): try payload.encode(to: encoder)
        case .lifecycle(let payload): try payload.encode(to: encoder)
        case .expire(let payload): try payload.encode(to: encoder)
        case .event(let payload): try payload.encode(to: encoder)
        case .authorization(let payload): try payload.encode(to: encoder)
        case .locations(let payload): try payload.encode(to: encoder)
        case .regionState(let payload): try payload.encode(to: encoder)
        case .regions(let payload): try payload.encode(to: encoder)
        case .locationStatus(let payload): try payload.encode(to: encoder)
        case .audioStream(let payload): try payload.encode(to: encoder)
        case .audioInterruption(let payload): try payload.encode(to: encoder)
        case .remoteCommand(let payload): try payload.encode(to: encoder)
        case .audioStatus(let payload): try payload.encode(to: encoder)
        }
    }
}
