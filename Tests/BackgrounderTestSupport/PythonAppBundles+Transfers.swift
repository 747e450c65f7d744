extension PythonAppBundles {
    /// What the transfer apps add to the Python prelude: `create(...)`, `finished(t)`
    /// (moves a download to `DATA/downloads/ID`, reports it, acknowledges it), `drain(session)`
    /// (attaches and hears every finished transfer), `handle_launch_events(checkin)` and
    /// `serve()` (hears updates and events until the connection closes, starting with the
    /// notices the prelude's `request` kept while it waited for replies).
    public static let transferPrelude = #"""
        import shutil
        FINAL = ("completed", "failed", "cancelled")
        _heard = set()

        def create(url, kind="download", session="s1", **fields):
            reply = request(dict({"class": "TRANSFER_CREATE", "session": session, "kind": kind, "url": url}, **fields))
            report("created", reply)
            return reply

        def finished(t):
            if t["transfer"] in _heard:
                return
            _heard.add(t["transfer"])
            if t.get("location"):
                os.makedirs(os.path.join(DATA, "downloads"), exist_ok=True)
                shutil.move(t["location"], os.path.join(DATA, "downloads", str(t["transfer"])))
            report("finished", t)
            request({"class": "TRANSFER_ACK", "transfer": t["transfer"]})

        def drain(session):
            for t in request({"class": "TRANSFER_SESSION", "session": session})["transfers"]:
                if t["state"] in FINAL:
                    finished(t)

        def on_event(event):
            if event.get("reason") != "download":
                return
            report("event", event)
            drain(event["session"])
            if event.get("window"):
                report("complete", request({"class": "COMPLETE", "window": event["window"]}))

        def handle_launch_events(checkin):
            for event in checkin.get("events") or []:
                on_event(event)

        def serve():
            while True:
                if _queued:
                    message = _queued.pop(0)
                else:
                    line = _stream.readline()
                    if not line:
                        return
                    message = json.loads(line)
                if message.get("class") == "TRANSFER_UPDATE" and message["state"] in FINAL:
                    finished(message)
                elif message.get("class") == "EVENT":
                    on_event(message)

        CHECKIN = request({"class": "CHECKIN", "bundle": BUNDLE})
        report("checkin", CHECKIN)
        """#
}
