import Foundation
import Testing

@testable import BackgrounderProtocol

/// The lists of message classes: every class a sample line, every line read into a body,
/// written back to the same JSON and read again into the same body.
///
/// The samples are wire lines rather than Swift values so they pin the format of
/// docs/PROTOCOL.md, and a list line that pairs a name with the wrong case shows as a line
/// written back under another class.
@Suite("Message classes", .timeLimit(.minutes(5)))
struct MessageClassesTests {
    static let region =
        #"{"identifier":"home","center":{"latitude":46.05,"longitude":14.5},"radius":100,"notifyOnEntry":true,"notifyOnExit":false}"#
    static let location =
        #"{"coordinate":{"latitude":46.05,"longitude":14.5},"timestamp":1744286400,"fixMode":"3d","horizontalAccuracy":5}"#
    static let service = #"{"server":"127.0.0.1:2947","state":"connected"}"#
    static let nowPlaying = #"{"title":"Song","artist":"Band","elapsed":12.5,"duration":200,"playing":true}"#
    static let notificationRequest =
        #"{"identifier":"tea","content":{"title":"Tea","subtitle":"","body":"Ready","sound":"default","#
        + #""userInfo":{"cup":2},"threadIdentifier":"kitchen"},"trigger":{"type":"timeInterval","seconds":180,"repeats":false}}"#
    static let delivered = #"{"request":\#(notificationRequest),"date":1744290000,"presenter":"log:1"}"#

    /// One line for every class a client may send.
    static let requests = [
        #"{"class":"HELLO","protocol":1,"client":"bgctl","id":1}"#,
        #"{"class":"STATUS","id":"s"}"#,
        #"{"class":"BUNDLES"}"#,
        #"{"class":"RELOAD"}"#,
        #"{"class":"OPEN","bundle":"org.example.a"}"#,
        #"{"class":"HOME"}"#,
        #"{"class":"LOCK"}"#,
        #"{"class":"UNLOCK"}"#,
        #"{"class":"QUIT","bundle":"org.example.a"}"#,
        #"{"class":"PS"}"#,
        #"{"class":"CAPABILITIES"}"#,
        #"{"class":"CHECKIN","bundle":"org.example.a"}"#,
        #"{"class":"BEGIN_TASK","name":"upload"}"#,
        #"{"class":"END_TASK","task":3}"#,
        #"{"class":"WAKE","bundle":"org.example.a","reason":"push"}"#,
        #"{"class":"MEMORY_PRESSURE","critical":true}"#,
        #"{"class":"MEMORY_PRESSURE","warning":true}"#,
        #"{"class":"AUTHORIZE","bundle":"org.example.a","service":"location","level":"always"}"#,
        #"{"class":"LOCATION_AUTHORIZATION","level":"whenInUse"}"#,
        #"{"class":"LOCATION_UPDATES","standard":{"desiredAccuracy":10,"distanceFilter":5,"staleAfter":30},"#
            + #""allowsBackgroundUpdates":true,"deferral":{"distance":500},"significantChanges":false}"#,
        #"{"class":"LOCATION_READY"}"#,
        #"{"class":"LOCATION_ACK","through":42}"#,
        #"{"class":"REGION_START","region":\#(region)}"#,
        #"{"class":"REGION_STOP","identifier":"home"}"#,
        #"{"class":"REGION_STATE","identifier":"home"}"#,
        #"{"class":"REGIONS","bundle":"org.example.a"}"#,
        #"{"class":"AUDIO_SESSION","category":"playback","options":["mixWithOthers"],"active":true}"#,
        #"{"class":"AUDIO_STREAM_OPEN","direction":"playback","#
            + #""format":{"sampleFormat":"s16le","sampleRate":44100,"channels":2},"bufferSeconds":0.5}"#,
        #"{"class":"AUDIO_STREAM_CONTROL","stream":2,"action":"drain"}"#,
        #"{"class":"NOW_PLAYING",\#(nowPlaying.dropFirst())"#,
        #"{"class":"REMOTE_COMMAND","bundle":"org.example.a","command":"play","argument":"/music/a.wav"}"#,
        #"{"class":"REMOTE_COMMAND_STATUS","ticket":7,"status":"noSuchContent"}"#,
        #"{"class":"AUDIO","bundle":"org.example.a"}"#,
        #"{"class":"AUDIO_ROUTE","bundle":"org.example.a","sink":"phones"}"#,
        #"{"class":"PERMISSIONS"}"#,
        #"{"class":"SET_FETCH_INTERVAL","interval":"minimum"}"#,
        #"{"class":"COMPLETE","window":7,"result":"newData"}"#,
        #"{"class":"REGISTER_TASK","identifier":"org.example.a.refresh"}"#,
        #"{"class":"SUBMIT_TASK","identifier":"org.example.a.compact","kind":"processing","#
            + #""earliestBeginDate":1744286400,"requiresExternalPower":true,"requiresNetworkConnectivity":false}"#,
        #"{"class":"CANCEL_TASKS","identifier":"org.example.a.refresh"}"#,
        #"{"class":"PENDING_TASKS"}"#,
        #"{"class":"REGISTER_PUSH"}"#,
        #"{"class":"UNREGISTER_PUSH"}"#,
        #"{"class":"PUSH","bundle":"org.example.a","payload":{"aps":{"content-available":1},"n":[1,2.5,null,"x"]}}"#,
        #"{"class":"TASKS","bundle":"org.example.a"}"#,
        #"{"class":"SIMULATE_TASK","bundle":"org.example.a","identifier":"org.example.a.refresh"}"#,
        #"{"class":"EXPIRE_TASK","bundle":"org.example.a","identifier":"org.example.a.refresh"}"#,
        #"{"class":"TRANSFER_CREATE","session":"org.example.a.bg","kind":"upload","url":"https://example.org/up","#
            + #""method":"PUT","headers":{"X-A":"1"},"file":"/data/a.bin","discretionary":true,"#
            + #""earliestBeginDate":1744290000,"expectedBytesToSend":10,"taskDescription":"backup","#
            + #""sendsLaunchEvents":false}"#,
        #"{"class":"TRANSFER_CANCEL","transfer":4}"#,
        #"{"class":"TRANSFER_SESSION","session":"org.example.a.bg"}"#,
        #"{"class":"TRANSFER_ACK","transfer":4}"#,
        #"{"class":"TRANSFERS","bundle":"org.example.a","transfer":4}"#,
        #"{"class":"DATA_DIRECTORY","bundle":"org.example.a"}"#,
        #"{"class":"IMPORT","bundle":"org.example.a","sources":["/home/me/Music/album","/tmp/one.wav"]}"#,
        #"{"class":"ADOPT_BUNDLE","bundle":"org.example.a"}"#,
        #"{"class":"SHARE","bundle":"org.example.a","paths":["/home/me/Music/album"]}"#,
        #"{"class":"UNSHARE","bundle":"org.example.a","paths":[]}"#,
        #"{"class":"SHARES","bundle":"org.example.a"}"#,
        #"{"class":"NOTIFICATIONS_FOLLOW","bundle":"org.example.a"}"#,
        #"{"class":"PROMPTS"}"#,
        #"{"class":"ANSWER","prompt":1,"choice":"always"}"#,
        #"{"class":"MEDIA_LIBRARY_AUTHORIZATION"}"#,
        #"{"class":"SIMULATE_LOCATION","fixes":[{"coordinate":{"latitude":46.3633,"longitude":14.0814},"altitude":596,"#
            + #""timestamp":1744290000,"fixMode":"3d"}]}"#,
        #"{"class":"NOTIFICATION_AUTHORIZATION","options":["alert","sound"]}"#,
        #"{"class":"NOTIFICATION_ADD",\#(notificationRequest.dropFirst())"#,
        #"{"class":"NOTIFICATION_LIST","list":"pending"}"#,
        #"{"class":"NOTIFICATION_REMOVE","list":"delivered","identifiers":["tea"]}"#,
        #"{"class":"NOTIFICATION_PRESENTATION","request":"tea","options":["banner","sound"]}"#,
        #"{"class":"NOTIFICATIONS","bundle":"org.example.a"}"#,
        #"{"class":"NOTIFICATION_ACTIVATE","bundle":"org.example.a","request":"tea","action":"snooze"}"#,
    ]

    /// One line for every class the daemon may send.
    static let replies = [
        #"{"class":"VERSION","protocol":1,"protocolMinor":0,"release":"0.1.0"}"#,
        #"{"class":"HELLO","id":1,"pid":4242,"protocol":1,"uid":1000}"#,
        #"{"class":"STATUS","version":"0.1.0","protocol":1,"pid":7,"uptimeSeconds":1.5,"socket":"/run/b.sock","#
            + #""stateDirectory":"/var/b","bundles":{"loaded":2,"refused":1},"gpsd":\#(service),"#
            + #""pulseAudio":{"server":"default","state":"disconnected","detail":"refused"},"clients":3,"#
            + #""lastFix":\#(location),"storage":{"state":"ok","unstoredEvents":0},"#
            + #""conditions":{"externalPower":false,"powerSource":"AC (Mains) offline","network":true,"#
            + #""networkSource":"default route on eth0 (IPv4)","events":"rtnetlink","eventsUnavailable":["power-supply uevents: socket: Operation not permitted"],"intervalSeconds":5}}"#,
        #"{"class":"BUNDLES","bundles":[{"path":"/b/A.bundle","status":"refused","modes":[],"key":"CFBundleName","#
            + #""reason":"missing","warnings":[]}]}"#,
        #"{"class":"RELOAD","loaded":1,"refused":0,"added":["org.example.a"],"removed":[]}"#,
        #"{"class":"ERROR","id":5,"code":"unknownClass","message":"unknown class 'FOO'"}"#,
        #"{"class":"OK","detail":"opened","state":"active"}"#,
        #"{"class":"OK","detail":"sent nextTrack; it answered noSuchContent","handlerStatus":"noSuchContent"}"#,
        #"{"class":"CAPABILITIES","capabilities":[{"name":"transfers","summary":"1 running, 0 waiting, 0 finished and not yet heard by their app","counts":{"running":1,"waiting":0,"finished":0},"nextWake":1800000030}]}"#,
        #"{"class":"APPS","apps":[{"id":"org.example.a","name":"A","pid":12,"state":"background","#
            + #""modes":["audio"],"assertions":["audio"],"cpuSeconds":0.25,"forceQuit":false}]}"#,
        #"{"class":"CHECKIN","launchReason":"user","state":"active"}"#,
        #"{"class":"TASK","task":3}"#,
        #"{"class":"LIFECYCLE","event":"didEnterBackground","state":"background","backgroundTimeRemaining":30}"#,
        #"{"class":"EXPIRE","tasks":[1,2]}"#,
        #"{"class":"EVENT","reason":"push"}"#,
        #"{"class":"AUTHORIZATION","location":"always"}"#,
        #"{"class":"LOCATIONS","events":[{"seq":41,"kind":"location","location":\#(location)},"#
            + #"{"seq":42,"kind":"enter","location":\#(location),"region":\#(region)}]}"#,
        #"{"class":"REGION_STATE","identifier":"home","state":"inside"}"#,
        #"{"class":"REGIONS","regions":[{"region":\#(region),"state":"outside"}]}"#,
        #"{"class":"LOCATION_STATUS","available":false,"detail":"gpsd closed the connection","authorization":"always"}"#,
        #"{"class":"AUDIO_STREAM","stream":2,"token":"t0k","socket":"/run/a.sock","capacity":88200,"lowWater":22050}"#,
        #"{"class":"AUDIO_INTERRUPTION","type":"began","shouldResume":false,"reason":"session"}"#,
        #"{"class":"AUDIO_ROUTE_CHANGE","reason":"oldDeviceUnavailable","stream":2,"previousOutput":"phones","output":"null","paused":true}"#,
        #"{"class":"REMOTE_COMMAND","bundle":"org.example.a","command":"nextTrack","ticket":7}"#,
        #"{"class":"AUDIO_STATUS","server":\#(service),"sessions":[{"bundle":"org.example.a","category":"playback","#
            + #""options":[],"active":true,"interrupted":false,"ducked":false,"nowPlaying":\#(nowPlaying)}],"#
            + #""streams":[{"stream":2,"bundle":"org.example.a","direction":"playback","#
            + #""format":{"sampleFormat":"s16le","sampleRate":44100,"channels":2},"state":"running","corkedBy":[],"#
            + #""underruns":0,"overruns":1,"ringSeconds":0.5,"volume":1,"bytes":4096}]}"#,
        #"{"class":"PERMISSIONS","apps":[{"bundle":"org.example.a","name":"A","loaded":true,"location":"whenInUse","#
            + #""locationChangedAt":1,"microphone":"denied"}]}"#,
        #"{"class":"TASK_REQUESTS","requests":[{"identifier":"org.example.a.refresh","kind":"appRefresh"}]}"#,
        #"{"class":"PUSH_TOKEN","token":"3f1c9a"}"#,
        #"{"class":"PUSHED","detail":"deferred","delivered":false,"deferredUntil":1744290000}"#,
        #"{"class":"SCHEDULE","entries":[{"bundle":"org.example.a","kind":"processing","#
            + #""identifier":"org.example.a.compact","nextRun":1744290000,"waitingFor":["externalPower"],"running":false}]}"#,
        #"{"class":"BACKGROUND_TIME","backgroundTimeRemaining":29.5}"#,
        #"{"class":"MEMORY_WARNING","critical":false}"#,
        #"{"class":"TRANSFER","transfer":4,"bundle":"org.example.a","request":{"session":"s","kind":"download","#
            + #""url":"http://example.org/f"},"state":"waiting","waitingFor":"network","bytesReceived":0,"#
            + #""bytesExpectedToReceive":-1,"bytesSent":0,"bytesExpectedToSend":0,"bytesRefetched":0,"retries":0,"#
            + #""created":1744290000}"#,
        #"{"class":"TRANSFER_LIST","transfers":[{"transfer":4,"bundle":"org.example.a","request":{"session":"s","#
            + #""kind":"download","url":"http://example.org/f"},"state":"completed","bytesReceived":5,"#
            + #""bytesExpectedToReceive":5,"bytesSent":0,"bytesExpectedToSend":0,"bytesRefetched":2,"retries":1,"#
            + #""lastError":"reset","created":1744290000,"response":{"status":404,"headers":{"etag":"v1"},"#
            + #""url":"http://example.org/f"},"location":"/data/tmp/CFNetworkDownload_4.tmp"}]}"#,
        #"{"class":"TRANSFER_UPDATE","transfer":4,"bundle":"org.example.a","request":{"session":"s","kind":"download","#
            + #""url":"http://example.org/f"},"state":"failed","bytesReceived":0,"bytesExpectedToReceive":-1,"#
            + #""bytesSent":0,"bytesExpectedToSend":0,"bytesRefetched":0,"retries":0,"created":1744290000,"#
            + #""error":{"code":"httpTooManyRedirects","message":"a cycle"},"rate":12.5,"retryAt":1744290001}"#,
        #"{"class":"EVENT","reason":"push","window":3,"seconds":30,"payload":{"aps":{"content-available":1}}}"#,
        #"{"class":"DATA_DIRECTORY","bundle":"org.example.a","path":"/var/b/data/org.example.a"}"#,
        #"{"class":"IMPORTED","bundle":"org.example.a","directory":"/var/b/data/org.example.a","#
            + #""destinations":["/var/b/data/org.example.a/album"],"files":2,"bytes":4096,"#
            + #""skipped":[{"path":"/home/me/Music/album/link","reason":"a symbolic link; not followed"}]}"#,
        #"{"class":"SHARED","bundle":"org.example.a","files":[{"path":"/home/me/Music/album","directory":true}]}"#,
        #"{"class":"PROMPTS","prompts":[{"id":1,"bundle":"org.example.a","app":"A","service":"location","#
            + #""asks":"always","usage":"To record your hikes.","askedAt":1744290000,"#
            + #""choices":["while-using","always","deny"]}]}"#,
        #"{"class":"NOTIFICATION_DELIVERED","bundle":"org.example.a","app":"A","notification":\#(delivered)}"#,
        #"{"class":"NOTIFICATION_AUTHORIZATION","status":"notDetermined"}"#,
        #"{"class":"MEDIA_LIBRARY","status":"granted","folder":"/home/me/Music"}"#,
        #"{"class":"NOTIFICATIONS","bundle":"org.example.a","authorization":"granted","#
            + #""pending":[{"request":\#(notificationRequest),"nextFire":1744290000}],"delivered":[\#(delivered)]}"#,
        #"{"class":"NOTIFICATION_WILL_PRESENT","notification":\#(delivered)}"#,
        #"{"class":"NOTIFICATION_RESPONSE","notification":\#(delivered),"#
            + #""actionIdentifier":"com.apple.UNNotificationDefaultActionIdentifier"}"#,
    ]

    let codec = LineCodec()

    @Test("no wire name is listed twice in either direction")
    func namesAreUnique() {
        for names in [ClientMessage.classNames, DaemonMessage.classes.names] {
            let repeated = Dictionary(grouping: names, by: { $0 }).filter { $0.value.count > 1 }.keys
            #expect(repeated.isEmpty, "listed more than once: \(repeated.sorted())")
        }
    }

    @Test("every listed class has a sample line here, and no sample names an unlisted class")
    func samplesCoverTheLists() throws {
        #expect(try Set(Self.requests.map(Self.className)) == Set(ClientMessage.classNames))
        #expect(try Set(Self.replies.map(Self.className)) == Set(DaemonMessage.classes.names))
    }

    @Test("every request class reads and writes back the same line", arguments: requests)
    func requestRoundTrip(line: String) throws {
        let message = try codec.decode(ClientMessage.self, from: Array(line.utf8))
        #expect(message.className == (try Self.className(of: line)))
        let written = try codec.encode(message)
        #expect(try Self.object(written) == Self.object(Data(line.utf8)))
        #expect(try codec.decode(ClientMessage.self, from: written.dropLast()) == message)
    }

    @Test("every reply and notice class reads and writes back the same line", arguments: replies)
    func replyRoundTrip(line: String) throws {
        let message = try codec.decode(DaemonMessage.self, from: Array(line.utf8))
        #expect(message.className == (try Self.className(of: line)))
        let written = try codec.encode(message)
        #expect(try Self.object(written) == Self.object(Data(line.utf8)))
        #expect(try codec.decode(DaemonMessage.self, from: written.dropLast()) == message)
    }

    @Test("no payload has a field named id or class: a reply keeps the request's id beside any payload")
    func payloadsLeaveTheHeaderAlone() throws {
        for line in Self.replies {
            var message = try codec.decode(DaemonMessage.self, from: Array(line.utf8))
            message.id = MessageID.string("x77")
            let again = try codec.decode(DaemonMessage.self, from: try codec.encode(message).dropLast())
            #expect(again.id == MessageID.string("x77"), "\(message.className)")
            #expect(again.body == message.body, "\(message.className)")
        }
        for line in Self.requests {
            var message = try codec.decode(ClientMessage.self, from: Array(line.utf8))
            message.id = MessageID.string("x77")
            let again = try codec.decode(ClientMessage.self, from: try codec.encode(message).dropLast())
            #expect(again.id == MessageID.string("x77"), "\(message.className)")
        }
    }

    @Test("classes that share a payload type keep their own names")
    func sharedPayloadTypes() {
        let app = AppReference(bundle: "org.example.a")
        #expect(ClientMessage(.open(OpenApp(bundle: app.bundle))).className == "OPEN")
        #expect(ClientMessage(.quit(app)).className == "QUIT")
        #expect(ClientMessage(.dataDirectory(app)).className == "DATA_DIRECTORY")
        let region = RegionReference(identifier: "home")
        #expect(ClientMessage(.stopMonitoring(region)).className == "REGION_STOP")
        #expect(ClientMessage(.requestState(region)).className == "REGION_STATE")
        let transfer = TransferReference(transfer: 4)
        #expect(ClientMessage(.cancelTransfer(transfer)).className == "TRANSFER_CANCEL")
        #expect(ClientMessage(.acknowledgeTransfer(transfer)).className == "TRANSFER_ACK")
        let info = TransferInfo(
            id: 4, bundle: "org.example.a",
            request: TransferSubmission(session: "s", kind: .download, url: "http://a/"),
            state: .running, created: 1)
        #expect(DaemonMessage(.transfer(info)).className == "TRANSFER")
        #expect(DaemonMessage(.transferUpdate(info)).className == "TRANSFER_UPDATE")
    }

    @Test("docs/PROTOCOL.md's table of who may send what says what RequestAccess enforces, for every request")
    func authorizationMatrixIsDocumented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appending(path: "docs/PROTOCOL.md"), encoding: .utf8)
        let table =
            text.components(separatedBy: "| request | a person | an app, for itself | anyone else |")
            .dropFirst().first ?? ""
        let rows = table.split(separator: "\n").dropFirst().prefix { $0.hasPrefix("| ") }
        var documented: [String: [RequestAccess]] = [:]
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4 else { continue }
            let access: RequestAccess =
                cells[3] == "yes" ? .anyone : cells[1] == "yes" && cells[2] == "no" ? .person : .app
            // Backticked words that are request classes (others are fields, like `bundle`).
            let names = cells[0].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map {
                String($0.element)
            }
            for name in names where ClientMessage.classNames.contains(name) {
                documented[name, default: []].append(access)
            }
        }
        for line in Self.requests {
            let message = try codec.decode(ClientMessage.self, from: Array(line.utf8))
            let rows = documented[message.className] ?? []
            // REGIONS has two rows: naming a bundle (a person) and without (an app about itself).
            #expect(
                rows.contains(message.body.access), "\(message.className) is \(message.body.access), documented \(rows)"
            )
            #expect(rows.count == 1 || message.className == "REGIONS", "\(message.className) is in \(rows.count) rows")
        }
    }

    /// A line's JSON object, compared as values so key order and number spelling do not matter.
    private static func object(_ data: Data) throws -> NSDictionary {
        let object = try JSONSerialization.jsonObject(with: data)
        return try #require(object as? NSDictionary, "not a JSON object: \(String(decoding: data, as: UTF8.self))")
    }

    private static func className(of line: String) throws -> String {
        try #require(object(Data(line.utf8))["class"] as? String)
    }
}
