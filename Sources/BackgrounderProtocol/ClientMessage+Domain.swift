public import BackgrounderCore

extension ClientMessage {
    /// A request by the part of the daemon that answers it: the daemon itself, the app core, or
    /// one capability. The wire stays one flat list of classes (``Body``); this is how the
    /// daemon's router takes it apart, so each part switches over its own requests, all of
    /// them, and a new request that no part answers does not compile.
    public enum Domain: Sendable, Hashable {
        /// Answered by the daemon's composition: its status, bundles, files a person hands over.
        case daemon(DaemonRequest)
        /// Answered by the app core: a person's actions, check-in, background tasks, grants.
        case apps(AppsRequest)
        case location(LocationRequest)
        case audio(AudioRequest)
        case scheduling(SchedulingRequest)
        case transfers(TransferRequest)
        case notifications(NotificationsRequest)
        case sharing(SharingRequest)
    }

    /// What the daemon's composition answers.
    public enum DaemonRequest: Sendable, Hashable {
        case hello(Hello)
        case status
        case bundles
        case reload
        case dataDirectory(AppReference)
        case importFiles(ImportRequest)
        case adoptBundle(AppReference)
        case share(ShareRequest)
        case simulateLocation(SimulatedLocation)
        case followNotifications(NotificationsFollow)
    }

    /// What the app core answers.
    public enum AppsRequest: Sendable, Hashable {
        case open(OpenApp)
        case home
        case lock
        case unlock
        case quit(AppReference)
        case ps
        case capabilities
        case checkIn(CheckIn)
        case memoryPressure(MemoryPressure)
        case beginTask(BeginTask)
        case endTask(TaskReference)
        case authorize(Authorize)
        case prompts
        case answer(ConsentAnswer)
        case permissions(PermissionsQuery)
    }

    /// What the location capability answers.
    public enum LocationRequest: Sendable, Hashable {
        case requestAuthorization(AuthorizationRequest)
        case locationUpdates(LocationSubscription)
        case locationReady
        case locationAck(LocationAck)
        case startMonitoring(RegionRequest)
        case stopMonitoring(RegionReference)
        case requestState(RegionReference)
        case regions(RegionQuery)
    }

    /// What the audio capability answers.
    public enum AudioRequest: Sendable, Hashable {
        case audioSession(AudioSessionRequest)
        case openAudioStream(AudioStreamRequest)
        case audioStreamControl(AudioStreamControl)
        case nowPlaying(NowPlayingInfo)
        case remoteCommand(RemoteCommandRequest)
        case remoteCommandStatus(RemoteCommandStatusReport)
        case audio(AudioQuery)
        case audioRoute(AudioRouteRequest)
    }

    /// What the scheduling capability answers: fetch, background tasks, push.
    public enum SchedulingRequest: Sendable, Hashable {
        case wake(WakeRequest)
        case push(PushRequest)
        case tasks(ScheduleQuery)
        case simulateTask(TaskDebugRequest)
        case expireTask(TaskDebugRequest)
        case setFetchInterval(FetchIntervalRequest)
        case complete(WindowCompletion)
        case registerTask(TaskRegistration)
        case submitTask(TaskSubmission)
        case cancelTasks(TaskCancellation)
        case pendingTasks
        case registerPush
        case unregisterPush
    }

    /// What the transfer capability answers.
    public enum TransferRequest: Sendable, Hashable {
        case createTransfer(TransferSubmission)
        case cancelTransfer(TransferReference)
        case transferSession(TransferSessionRequest)
        case acknowledgeTransfer(TransferReference)
        case transfers(TransferQuery)
    }

    /// What the notification capability answers.
    public enum NotificationsRequest: Sendable, Hashable {
        case requestNotificationAuthorization(NotificationAuthorizationRequest)
        case addNotification(NotificationAddRequest)
        case listNotifications(NotificationListQuery)
        case removeNotifications(NotificationRemoval)
        case notificationPresentation(NotificationPresentation)
        case notifications(NotificationsQuery)
        case activateNotification(NotificationActivation)
    }

    /// What the sharing capability answers (`SHARE` itself opens a person's files first, in
    /// the daemon).
    public enum SharingRequest: Sendable, Hashable {
        case requestMediaLibraryAuthorization
        case unshare(UnshareRequest)
        case shares(AppReference)
    }
}

extension ClientMessage.Body {
    /// The part of the daemon that answers this request.
    public var domain: ClientMessage.Domain {
        switch self {
        case .hello(let hello): .daemon(.hello(hello))
        case .status: .daemon(.status)
        case .bundles: .daemon(.bundles)
        case .reload: .daemon(.reload)
        case .dataDirectory(let app): .daemon(.dataDirectory(app))
        case .importFiles(let request): .daemon(.importFiles(request))
        case .adoptBundle(let app): .daemon(.adoptBundle(app))
        case .share(let request): .daemon(.share(request))
        case .simulateLocation(let request): .daemon(.simulateLocation(request))
        case .followNotifications(let request): .daemon(.followNotifications(request))

        case .open(let app): .apps(.open(app))
        case .home: .apps(.home)
        case .lock: .apps(.lock)
        case .unlock: .apps(.unlock)
        case .quit(let app): .apps(.quit(app))
        case .ps: .apps(.ps)
        case .capabilities: .apps(.capabilities)
        case .checkIn(let checkIn): .apps(.checkIn(checkIn))
        case .memoryPressure(let pressure): .apps(.memoryPressure(pressure))
        case .beginTask(let task): .apps(.beginTask(task))
        case .endTask(let task): .apps(.endTask(task))
        case .authorize(let grant): .apps(.authorize(grant))
        case .prompts: .apps(.prompts)
        case .answer(let answer): .apps(.answer(answer))
        case .permissions(let query): .apps(.permissions(query))

        case .requestAuthorization(let request): .location(.requestAuthorization(request))
        case .locationUpdates(let subscription): .location(.locationUpdates(subscription))
        case .locationReady: .location(.locationReady)
        case .locationAck(let ack): .location(.locationAck(ack))
        case .startMonitoring(let request): .location(.startMonitoring(request))
        case .stopMonitoring(let region): .location(.stopMonitoring(region))
        case .requestState(let region): .location(.requestState(region))
        case .regions(let query): .location(.regions(query))

        case .audioSession(let request): .audio(.audioSession(request))
        case .openAudioStream(let request): .audio(.openAudioStream(request))
        case .audioStreamControl(let control): .audio(.audioStreamControl(control))
        case .nowPlaying(let info): .audio(.nowPlaying(info))
        case .remoteCommand(let request): .audio(.remoteCommand(request))
        case .remoteCommandStatus(let report): .audio(.remoteCommandStatus(report))
        case .audio(let query): .audio(.audio(query))
        case .audioRoute(let request): .audio(.audioRoute(request))

        case .wake(let request): .scheduling(.wake(request))
        case .push(let request): .scheduling(.push(request))
        case .tasks(let query): .scheduling(.tasks(query))
        case .simulateTask(let request): .scheduling(.simulateTask(request))
        case .expireTask(let request): .scheduling(.expireTask(request))
        case .setFetchInterval(let request): .scheduling(.setFetchInterval(request))
        case .complete(let completion): .scheduling(.complete(completion))
        case .registerTask(let registration): .scheduling(.registerTask(registration))
        case .submitTask(let submission): .scheduling(.submitTask(submission))
        case .cancelTasks(let cancellation): .scheduling(.cancelTasks(cancellation))
        case .pendingTasks: .scheduling(.pendingTasks)
        case .registerPush: .scheduling(.registerPush)
        case .unregisterPush: .scheduling(.unregisterPush)

        case .createTransfer(let submission): .transfers(.createTransfer(submission))
        case .cancelTransfer(let reference): .transfers(.cancelTransfer(reference))
        case .transferSession(let request): .transfers(.transferSession(request))
        case .acknowledgeTransfer(let reference): .transfers(.acknowledgeTransfer(reference))
        case .transfers(let query): .transfers(.transfers(query))

        case .requestNotificationAuthorization(let request): .notifications(.requestNotificationAuthorization(request))
        case .addNotification(let request): .notifications(.addNotification(request))
        case .listNotifications(let query): .notifications(.listNotifications(query))
        case .removeNotifications(let removal): .notifications(.removeNotifications(removal))
        case .notificationPresentation(let presentation): .notifications(.notificationPresentation(presentation))
        case .notifications(let query): .notifications(.notifications(query))
        case .activateNotification(let activation): .notifications(.activateNotification(activation))

        case .requestMediaLibraryAuthorization: .sharing(.requestMediaLibraryAuthorization)
        case .unshare(let request): .sharing(.unshare(request))
        case .shares(let app): .sharing(.shares(app))
        }
    }
}
