#!/usr/bin/env bash
# The main job: installs what is missing, builds, bundles the samples, then runs
# backgrounderd with them against a real gpsd (gpsfake replaying a walk around Lake Bled)
# and PulseAudio (yours if one answers, else a private headless one with a null sink),
# and shows what the daemon sees.
#
#   scripts/demo.sh          run, show, stop everything
#   scripts/demo.sh --keep   leave it running until Ctrl-C (bgctl --socket "$RUN/backgrounderd.sock" ...)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
KEEP=${1:-}

scripts/setup.sh

RUN=${BACKGROUNDER_DEMO_DIR:-/tmp/backgrounder-demo-$(id -u)}
rm -rf "$RUN"
# 0711: the socket directory; a root daemon's apps, under uids of their own, pass through it
# to the audio socket (docs/SANDBOX.md), and nobody else may list it.
mkdir -p -m 711 "$RUN"
BIN=$ROOT/.build/debug
SOCKET=$RUN/backgrounderd.sock
PIDS=()

cleanup() {
    for pid in "${PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT

# Start a command in its own process group so cleanup stops its children too.
start() {
    local log=$1
    shift
    setsid "$@" >"$log" 2>&1 </dev/null &
    PIDS+=($!)
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_for() {
    local what=$1
    shift
    for _ in $(seq 1 150); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.1
    done
    echo "demo: $what did not come up; logs are in $RUN" >&2
    exit 1
}

# Waits until an app is in a state (bgctl ps), for at most 15 s.
wait_state() {
    local id=$1 state=$2
    for _ in $(seq 1 150); do
        "$BIN/bgctl" ps --json --socket "$SOCKET" | python3 -c "import json,sys; sys.exit(0 if any(a['id']=='$id' and a['state']=='$state' for a in json.load(sys.stdin)['apps']) else 1)" && return 0
        sleep 0.1
    done
    return 0
}

# gpsd comes up later, replaying the walk once the recorder is listening: the daemon
# reconnects by itself (with backoff), as it does whenever gpsd restarts.
GPSD_PORT=$(free_port)
PRIVATE_PULSE=()

if pactl info >/dev/null 2>&1; then
    echo "== PulseAudio: using the running server"
    PULSE_ARGS=()
else
    echo "== PulseAudio: none answers, starting a private headless one with a null sink"
    mkdir -p -m 700 "$RUN/pulse" "$RUN/pulse-home"
    start "$RUN/pulseaudio.log" env PULSE_RUNTIME_PATH="$RUN/pulse" HOME="$RUN/pulse-home" XDG_RUNTIME_DIR="$RUN/pulse" \
        pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit \
        --load="module-null-sink sink_name=null" --load=module-native-protocol-unix
    wait_for "PulseAudio" test -S "$RUN/pulse/native"
    PULSE_ARGS=(--pulse-server "unix:$RUN/pulse/native")
    PRIVATE_PULSE=(env PULSE_SERVER="unix:$RUN/pulse/native" PULSE_RUNTIME_PATH="$RUN/pulse" HOME="$RUN/pulse-home")
fi

echo "== backgrounderd with the sample bundles in Bundles/"
# A short task budget keeps the demo brief (iOS's 30 s is the default).
start "$RUN/backgrounderd.log" "$BIN/backgrounderd" --bundles "$ROOT/Bundles" --socket "$SOCKET" \
    --state-dir "$RUN/state" --gpsd "127.0.0.1:$GPSD_PORT" "${PULSE_ARGS[@]}" \
    --task-budget 8 --expiration-warning 3 --suspend-grace 2
wait_for "backgrounderd" "$BIN/bgctl" status --socket "$SOCKET"

echo
echo "\$ bgctl status"
"$BIN/bgctl" status --socket "$SOCKET"
echo
echo "\$ bgctl bundles"
"$BIN/bgctl" bundles --socket "$SOCKET"
echo
HELLO=org.backgrounder.samples.hello
echo "\$ bgctl open $HELLO   # it checks in on the connection it is handed (BACKGROUNDER_FD)"
"$BIN/bgctl" open "$HELLO" --socket "$SOCKET"
for _ in $(seq 1 50); do
    grep -q "foreground" "$RUN/state/logs/$HELLO.log" 2>/dev/null && break
    sleep 0.1
done
cat "$RUN/state/logs/$HELLO.log"

FIB=org.backgrounder.samples.fibonacci
FIBLOG=$RUN/state/logs/$FIB.log
echo
echo "== the life cycle: Fibonacci computes on a background task, is suspended, and resumes"
echo "\$ bgctl open $FIB"
"$BIN/bgctl" open "$FIB" --socket "$SOCKET"
sleep 2
echo "\$ bgctl home"
"$BIN/bgctl" home --socket "$SOCKET"
sleep 1
"$BIN/bgctl" ps --socket "$SOCKET"
for _ in $(seq 1 150); do
    "$BIN/bgctl" ps --json --socket "$SOCKET" | grep -q '"suspended"' && break
    sleep 0.1
done
echo "(its log: $FIBLOG)"
grep -E "expiration|entered" "$FIBLOG" | tail -2
tail -n 1 "$FIBLOG"
"$BIN/bgctl" ps --socket "$SOCKET"
echo "\$ bgctl open $FIB     # thawed; the sequence goes on where it stopped"
"$BIN/bgctl" open "$FIB" --socket "$SOCKET"
sleep 1
tail -n 2 "$FIBLOG"

HIKE=org.backgrounder.samples.hikerecorder
ALERTS=org.backgrounder.samples.regionalerts
echo
echo "== location: a recorded walk around Lake Bled, with a region alert on the way"
echo "\$ bgctl authorize $HIKE location always; bgctl authorize $ALERTS location always"
"$BIN/bgctl" authorize "$HIKE" location always --socket "$SOCKET"
"$BIN/bgctl" authorize "$ALERTS" location always --socket "$SOCKET"
# The Ojstrica viewpoint, which the walk climbs to.
echo "\$ RegionAlerts add ojstrica 46.35810 14.08340 80"
"$BIN/RegionAlerts" add ojstrica 46.35810 14.08340 80 --state-dir "$RUN/state"
echo "\$ bgctl open $ALERTS; bgctl quit $ALERTS     # it registers its regions, then is not running at all"
"$BIN/bgctl" open "$ALERTS" --socket "$SOCKET"
sleep 1
"$BIN/bgctl" quit "$ALERTS" --socket "$SOCKET"
echo "\$ bgctl open $HIKE; bgctl lock"
"$BIN/bgctl" open "$HIKE" --socket "$SOCKET"
sleep 1
"$BIN/bgctl" lock --socket "$SOCKET"
echo "== gpsd under gpsfake, replaying Tests/Fixtures/gps/walk-bled.nmea (77 min of fixes in about a minute)"
# The receiver searches for a while first (the first epoch repeated), as a real one does.
python3 - "$ROOT/Tests/Fixtures/gps/walk-bled.nmea" "$RUN/walk.nmea" <<'PY'
import sys
lines = [line for line in open(sys.argv[1]) if line.startswith("$")]
open(sys.argv[2], "w").write("".join(lines[:3] * 100 + lines))
PY
start "$RUN/gpsfake.log" gpsfake -q -1 -P "$GPSD_PORT" -c 0.02 "$RUN/walk.nmea"
HIKELOG=$RUN/state/logs/$HIKE.log
for _ in $(seq 1 300); do grep -q "woken for location" "$RUN/backgrounderd.log" && break; sleep 0.1; done
echo "(the recorder is suspended between batches and woken every 250 m with the fixes that queued)"
grep -E "$HIKE.*(suspended|woken for location)" "$RUN/backgrounderd.log" | head -4 | sed 's/^.*\] /  daemon: /'
"$BIN/bgctl" ps --socket "$SOCKET"
for _ in $(seq 1 1200); do
    "$BIN/bgctl" status --json --socket "$SOCKET" | grep -q '"state" : "connected"' || break
    sleep 0.1
done
echo "(the walk is over; its log: $HIKELOG)"
tail -n 2 "$HIKELOG"
echo "\$ cat $RUN/state/data/$ALERTS/alerts.log     # RegionAlerts was relaunched for these"
cat "$RUN/state/data/$ALERTS/alerts.log" 2>/dev/null || echo "(no alerts)"
echo "\$ bgctl unlock; HikeRecorder export $RUN/walk.gpx"
"$BIN/bgctl" unlock --socket "$SOCKET"
sleep 1
"$BIN/HikeRecorder" export "$RUN/walk.gpx" --state-dir "$RUN/state"
grep -m 3 "<trkpt" -A 2 "$RUN/walk.gpx"

PLAYER=org.backgrounder.samples.backgroundplayer
echo
echo "== audio: BackgroundPlayer plays a short generated tune on with the screen locked"
# A little tune, generated here: eight bars of plucked notes, 44.1 kHz stereo. It goes into the
# player's data directory: a sandboxed app reads its own bundle and data, nothing of ours.
TUNE=$RUN/state/data/$PLAYER/tune.wav
mkdir -p "$(dirname "$TUNE")"
python3 - "$TUNE" <<'PY'
import math, struct, sys, wave
rate, beat = 44100, 0.3
melody = [0, 4, 7, 12, 7, 4, 0, 7, 5, 9, 12, 17, 12, 9, 5, 12, 7, 11, 14, 19, 14, 11, 7, 14, 0, 4, 7, 12, 7, 4, 0, -12]
frames = bytearray()
for step, note in enumerate(melody):
    frequency = 261.63 * 2 ** (note / 12)
    for i in range(int(rate * beat)):
        t = i / rate
        level = 0.3 * math.exp(-3 * t) * (math.sin(2 * math.pi * frequency * t) + 0.3 * math.sin(4 * math.pi * frequency * t))
        left, right = level * (0.6 + 0.4 * (step % 2)), level * (1.0 - 0.4 * (step % 2))
        frames += struct.pack("<hh", int(32767 * left), int(32767 * right))
with wave.open(sys.argv[1], "wb") as out:
    out.setnchannels(2); out.setsampwidth(2); out.setframerate(rate); out.writeframes(bytes(frames))
PY
export BACKGROUNDER_SOCKET=$SOCKET
if [ ${#PRIVATE_PULSE[@]} -gt 0 ]; then
    # No speakers here: parec on the null sink's monitor hears what played.
    start "$RUN/parec.log" "${PRIVATE_PULSE[@]}" parec -d null.monitor --raw --format=s16le --rate=44100 --channels=1 "$RUN/heard.raw"
fi
echo "\$ bgctl open $PLAYER; BackgroundPlayer play tune.wav; bgctl lock"
"$BIN/bgctl" open "$PLAYER" --socket "$SOCKET"
sleep 1
chmod 644 "$TUNE"
"$BIN/BackgroundPlayer" play "$TUNE"
sleep 1
"$BIN/bgctl" lock --socket "$SOCKET"
sleep 3
echo "\$ bgctl audio     # locked, in the background, still playing: it holds the audio assertion"
"$BIN/bgctl" audio --socket "$SOCKET"
"$BIN/bgctl" ps --socket "$SOCKET" | grep -E "^ID|$PLAYER"
echo "\$ BackgroundPlayer pause     # paused in the background: suspended after the grace period"
"$BIN/BackgroundPlayer" pause
for _ in $(seq 1 100); do
    "$BIN/bgctl" ps --json --socket "$SOCKET" | python3 -c "import json,sys; sys.exit(0 if any(a['id']=='$PLAYER' and a['state']=='suspended' for a in json.load(sys.stdin)['apps']) else 1)" && break
    sleep 0.1
done
"$BIN/bgctl" ps --socket "$SOCKET" | grep -E "^ID|$PLAYER"
echo "\$ BackgroundPlayer resume     # the daemon wakes it for the command; it plays the tune to the end"
"$BIN/BackgroundPlayer" resume
sleep 1
"$BIN/BackgroundPlayer" status
for _ in $(seq 1 200); do
    "$BIN/bgctl" audio --json --socket "$SOCKET" | grep -q '"playing"' || break
    sleep 0.1
done
if [ ${#PRIVATE_PULSE[@]} -gt 0 ]; then
    python3 - "$RUN/heard.raw" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
samples = struct.unpack("<%dh" % (len(data) // 2), data)
loud = sum(1 for start in range(0, len(samples) - 441, 441)
           if max(abs(s) for s in samples[start:start + 441]) > 300)
print(f"parec heard {loud / 100:.1f} s of sound on the null sink's monitor ({len(samples) / 44100:.1f} s recorded)")
PY
fi
"$BIN/bgctl" unlock --socket "$SOCKET"

READER=org.backgrounder.samples.feedreader
READERLOG=$RUN/state/logs/$READER.log
echo
echo "== background fetch: FeedReader refreshes a feed from a local HTTP server on fetch and on its refresh task"
# The feed: an RSS file served by Python's http.server, which answers If-Modified-Since with
# 304. Apps are sandboxed but may use the network (docs/SANDBOX.md), loopback included.
HTTP_PORT=$(free_port)
mkdir -p "$RUN/www"
feed() {
    python3 - "$RUN/www/feed.xml" "$@" <<'PY'
import sys
items = "".join(f"<item><title>{t}</title><guid>{t}</guid></item>" for t in sys.argv[2:])
open(sys.argv[1], "w").write(f'<rss version="2.0"><channel><title>Lake Bled news</title>{items}</channel></rss>')
PY
}
feed "Ice on the lake"
start "$RUN/http.log" python3 -m http.server "$HTTP_PORT" --bind 127.0.0.1 --directory "$RUN/www"
wait_for "the feed's HTTP server" python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$HTTP_PORT/feed.xml')"
echo "\$ FeedReader subscribe http://127.0.0.1:$HTTP_PORT/feed.xml     # writes feed.url in its data directory"
"$BIN/FeedReader" subscribe "http://127.0.0.1:$HTTP_PORT/feed.xml" --state-dir "$RUN/state"
echo "\$ bgctl open $READER; bgctl home     # it asks for fetch (.minimum) and submits a refresh task"
"$BIN/bgctl" open "$READER" --socket "$SOCKET"
sleep 1
"$BIN/bgctl" home --socket "$SOCKET"
wait_state "$READER" suspended
cat "$READERLOG"
# A new item, a second later than the last fetch so Last-Modified tells them apart.
sleep 1
feed "Rowing regatta on Saturday" "Ice on the lake"
echo "\$ bgctl simulate fetch $READER     # a new item: newData, then suspended again"
"$BIN/bgctl" simulate fetch "$READER" --socket "$SOCKET"
sleep 1
wait_state "$READER" suspended
tail -n 2 "$READERLOG"
echo "\$ bgctl simulate fetch $READER     # nothing new: 304 Not Modified, noData"
"$BIN/bgctl" simulate fetch "$READER" --socket "$SOCKET"
sleep 1
wait_state "$READER" suspended
tail -n 1 "$READERLOG"
sleep 1
feed "Swans are back" "Rowing regatta on Saturday" "Ice on the lake"
echo "\$ bgctl simulate task $READER $READER.refresh     # the refresh task submits the next one, then refreshes"
"$BIN/bgctl" simulate task "$READER" "$READER.refresh" --socket "$SOCKET"
sleep 1
wait_state "$READER" suspended
tail -n 3 "$READERLOG"
"$BIN/bgctl" ps --socket "$SOCKET" | grep -E "^ID|$READER"
echo "\$ bgctl tasks $READER"
"$BIN/bgctl" tasks "$READER" --socket "$SOCKET"
echo "\$ FeedReader items"
"$BIN/FeedReader" items --state-dir "$RUN/state"

COMPACTOR=org.backgrounder.samples.compactor
COMPACTORLOG=$RUN/state/logs/$COMPACTOR.log
JOURNAL=$RUN/state/data/$COMPACTOR/journal.sqlite
echo
echo "== processing: Compactor compacts its SQLite journal in a processing task that needs external power"
echo "\$ bgctl open $COMPACTOR; bgctl home     # entries added and pruned: free pages pile up; a task is submitted"
"$BIN/bgctl" open "$COMPACTOR" --socket "$SOCKET"
sleep 1
"$BIN/bgctl" home --socket "$SOCKET"
wait_state "$COMPACTOR" suspended
cat "$COMPACTORLOG"
echo "\$ bgctl tasks $COMPACTOR     # it waits for the device to be idle (and on power)"
"$BIN/bgctl" tasks "$COMPACTOR" --socket "$SOCKET"
echo "journal.sqlite: $(stat -c %s "$JOURNAL") bytes"
echo "\$ bgctl simulate task $COMPACTOR $COMPACTOR.compact     # runs it now: incremental vacuum in steps"
"$BIN/bgctl" simulate task "$COMPACTOR" "$COMPACTOR.compact" --socket "$SOCKET"
for _ in $(seq 1 100); do grep -qE "^(compacted|compaction stopped|compaction failed)" "$COMPACTORLOG" && break; sleep 0.1; done
wait_state "$COMPACTOR" suspended
tail -n 2 "$COMPACTORLOG"
echo "journal.sqlite: $(stat -c %s "$JOURNAL") bytes"
"$BIN/bgctl" ps --socket "$SOCKET" | grep -E "^ID|$COMPACTOR"

PODCASTS=org.backgrounder.samples.podcasts
PODCASTSLOG=$RUN/state/logs/$PODCASTS.log
echo
echo "== background transfers: Podcasts downloads a podcast's episodes while it is not running"
# Three short WAV episodes and an RSS feed announcing them, on the same local HTTP server.
mkdir -p "$RUN/www/episodes"
python3 - "$RUN/www" <<'PY'
import math, struct, sys, wave
root = sys.argv[1]
items = []
for number, (title, note) in enumerate([("Ice on the lake", 0), ("Rowing regatta", 4), ("Swans are back", 7)], 1):
    rate, frequency = 22050, 261.63 * 2 ** (note / 12)
    frames = b"".join(struct.pack("<h", int(8000 * math.sin(2 * math.pi * frequency * i / rate))) for i in range(rate * 2))
    name = f"episodes/episode{number}.wav"
    with wave.open(f"{root}/{name}", "wb") as out:
        out.setnchannels(1); out.setsampwidth(2); out.setframerate(rate); out.writeframes(frames)
    items.append(f'<item><title>{title}</title><enclosure url="{name}" type="audio/wav" length="{44 + len(frames)}"/></item>')
open(f"{root}/podcast.xml", "w").write(
    '<rss version="2.0"><channel><title>Lake Bled podcast</title>' + "".join(items) + "</channel></rss>")
PY
echo "\$ Podcasts subscribe http://127.0.0.1:$HTTP_PORT/podcast.xml     # writes feed.url in its data directory"
"$BIN/Podcasts" subscribe "http://127.0.0.1:$HTTP_PORT/podcast.xml" --state-dir "$RUN/state"
echo "\$ bgctl open $PODCASTS     # fetches the feed, hands each episode to a background download, exits"
"$BIN/bgctl" open "$PODCASTS" --socket "$SOCKET"
for _ in $(seq 1 100); do grep -q "^exiting" "$PODCASTSLOG" 2>/dev/null && break; sleep 0.1; done
cat "$PODCASTSLOG" 2>/dev/null || true
if grep -q "^downloading" "$PODCASTSLOG" 2>/dev/null; then
    echo "# the daemon downloads them, then launches the app into handleEventsForBackgroundURLSession"
    echo "\$ bgctl transfers"
    "$BIN/bgctl" transfers --socket "$SOCKET" || true
    for _ in $(seq 1 300); do grep -q "^all finished downloads filed" "$PODCASTSLOG" && break; sleep 0.1; done
    grep -E "^(launched|background session|episode|all finished)" "$PODCASTSLOG" | tail -n +2 || true
    echo "\$ Podcasts list"
    "$BIN/Podcasts" list --state-dir "$RUN/state"
    echo "# to hear them: cp -r $RUN/state/data/$PODCASTS/Episodes $RUN/state/data/$PLAYER/ &&"
    echo "#   BackgroundPlayer play $RUN/state/data/$PLAYER/Episodes"
else
    echo "# Podcasts handed nothing over: its log above says why"
fi

if [ "$KEEP" = "--keep" ]; then
    echo
    echo "Running. Try: $BIN/bgctl status --socket $SOCKET    (logs in $RUN; Ctrl-C stops everything)"
    wait
fi
