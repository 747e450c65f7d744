#!/usr/bin/env bash
# The main job: installs what is missing, builds, bundles the samples, then runs
# backgrounderd with them against a real gpsd (gpsfake replaying a walk around Lake Bled)
# and PulseAudio (yours if one answers, else a private headless one with a null sink),
# and shows what the daemon sees. Every claim it makes is checked as it goes (a line
# starting "  ok:"); the first one that does not hold stops it with the step, the command
# and why, and a non-zero exit. CI runs it so.
#
#   scripts/demo.sh          run, show, check, stop everything
#   scripts/demo.sh --keep   leave it running until Ctrl-C (bgctl --socket "$RUN/backgrounderd.sock" ...)
set -eEuo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
KEEP=${1:-}
RUN=${BACKGROUNDER_DEMO_DIR:-/tmp/backgrounder-demo-$(id -u)}
STEP="setup"
CLAIMS=0

# Any command that fails ends the demo with where and what it was.
trap 'status=$?; echo "demo: step \"$STEP\" failed at scripts/demo.sh:$LINENO: \`$BASH_COMMAND\` exited $status (logs in $RUN)" >&2; exit $status' ERR

step() {
    STEP=$1
    echo
    echo "== $1"
}

fail() {
    echo "demo: step \"$STEP\" failed: $* (logs in $RUN)" >&2
    exit 1
}

# claim WHAT COMMAND...: runs the check; says "ok: WHAT" or ends the demo naming it.
claim() {
    local what=$1
    shift
    if "$@"; then
        echo "  ok: $what"
        CLAIMS=$((CLAIMS + 1))
    else
        fail "this did not hold: $what"
    fi
}

scripts/setup.sh

rm -rf "$RUN"
# 0711: the socket directory; a root daemon's apps, under uids of their own, pass through it
# to the audio socket (docs/SANDBOX.md), and nobody else may list it.
mkdir -p -m 711 "$RUN"
BIN=$ROOT/.build/debug
SOCKET=$RUN/backgrounderd.sock
PIDS=()

# shellcheck source=lib/run.sh
source scripts/lib/run.sh

# gpsd comes up later, replaying the walk once the recorder is listening: the daemon
# reconnects by itself (with backoff), as it does whenever gpsd restarts.
GPSD_PORT=$(free_port)

step "PulseAudio"
start_pulse

step "backgrounderd with the sample bundles in Bundles/"
# A short task budget keeps the demo brief (iOS's 30 s is the default).
start "$RUN/backgrounderd.log" "$BIN/backgrounderd" --bundles "$ROOT/Bundles" --socket "$SOCKET" \
    --state-dir "$RUN/state" --gpsd "127.0.0.1:$GPSD_PORT" "${PULSE_ARGS[@]}" \
    --task-budget 8 --expiration-warning 3 --suspend-grace 2
DAEMON_PID=${PIDS[-1]}
wait_for "backgrounderd" "$BIN/bgctl" status --socket "$SOCKET"

echo "\$ bgctl status"
"$BIN/bgctl" status --socket "$SOCKET"
echo
echo "\$ bgctl bundles"
"$BIN/bgctl" bundles --socket "$SOCKET"
claim "all 9 sample bundles loaded, none refused" \
    test "$(json_query "sum(1 for b in j['bundles'] if b['status'] == 'loaded')" bundles)" -eq 9
claim "PulseAudio connected" test "$(json_query "j['status']['pulseAudio']['state']" status)" = connected

step "Hello: an app checks in on the connection it is handed"
HELLO=org.backgrounder.samples.hello
echo "\$ bgctl open $HELLO   # it checks in on the connection it is handed (BACKGROUNDER_FD)"
"$BIN/bgctl" open "$HELLO" --socket "$SOCKET"
wait_line "$RUN/state/logs/$HELLO.log" "foreground"
cat "$RUN/state/logs/$HELLO.log"
claim "Hello is active" test "$(app_state "$HELLO")" = active

step "the life cycle: Fibonacci computes on a background task, is suspended, and resumes"
FIB=org.backgrounder.samples.fibonacci
FIBLOG=$RUN/state/logs/$FIB.log
echo "\$ bgctl open $FIB"
"$BIN/bgctl" open "$FIB" --socket "$SOCKET"
wait_line "$FIBLOG" "${APP_LINE}n=3 "
echo "\$ bgctl home"
"$BIN/bgctl" home --socket "$SOCKET"
claim "Fibonacci runs on in the background (a background task)" test "$(app_state "$FIB")" = background
"$BIN/bgctl" ps --socket "$SOCKET"
echo "(its task budget is 8 s; then it is suspended)"
wait_state "$FIB" suspended
claim "Fibonacci is suspended once its task ran out" test "$(app_state "$FIB")" = suspended
echo "(its log: $FIBLOG)"
grep -E "expiration|entered" "$FIBLOG" | tail -2
tail -n 1 "$FIBLOG"
FIB_BEFORE=$(grep -cE "${APP_LINE}n=" "$FIBLOG")
echo "\$ bgctl open $FIB     # thawed; the sequence goes on where it stopped"
"$BIN/bgctl" open "$FIB" --socket "$SOCKET"
wait_line "$FIBLOG" "${APP_LINE}n=" $((FIB_BEFORE + 2))
tail -n 2 "$FIBLOG"
claim "Fibonacci was thawed, not relaunched: one run in its log, and it counts on" \
    test "$(lines_matching "$FIBLOG" "$RUN_STARTED")" -eq 1 -a "$(app_state "$FIB")" = active

step "location: a recorded walk around Lake Bled, with a region alert on the way"
HIKE=org.backgrounder.samples.hikerecorder
ALERTS=org.backgrounder.samples.regionalerts
echo "\$ bgctl authorize $HIKE location always; bgctl authorize $ALERTS location always"
"$BIN/bgctl" authorize "$HIKE" location always --socket "$SOCKET"
"$BIN/bgctl" authorize "$ALERTS" location always --socket "$SOCKET"
# The Ojstrica viewpoint, which the walk climbs to.
echo "\$ RegionAlerts add ojstrica 46.35810 14.08340 80"
"$BIN/RegionAlerts" add ojstrica 46.35810 14.08340 80 --state-dir "$RUN/state"
echo "\$ bgctl open $ALERTS; bgctl quit $ALERTS     # it registers its regions, then is not running at all"
"$BIN/bgctl" open "$ALERTS" --socket "$SOCKET"
has_regions() { [ "$(json_query "len(j['regions'])" regions "$ALERTS")" -ge 1 ]; }
wait_for "RegionAlerts' region" has_regions
"$BIN/bgctl" quit "$ALERTS" --socket "$SOCKET"
wait_state "$ALERTS" notRunning
echo "\$ bgctl open $HIKE; bgctl lock"
"$BIN/bgctl" open "$HIKE" --socket "$SOCKET"
wait_line "$RUN/state/logs/$HIKE.log" "location authorized"
"$BIN/bgctl" lock --socket "$SOCKET"

step "gpsd under gpsfake, replaying Tests/Fixtures/gps/walk-bled.nmea (77 min of fixes in about a minute)"
# The receiver searches for a while first (the first epoch, no fix, repeated for 15 s), as a
# real one does: time for the daemon (reconnecting every 5 s at most) and gpspipe to join
# before the first fix.
python3 - "$ROOT/Tests/Fixtures/gps/walk-bled.nmea" "$RUN/walk.nmea" <<'PY'
import sys
lines = [line for line in open(sys.argv[1]) if line.startswith("$")]
open(sys.argv[2], "w").write("".join(lines[:3] * 250 + lines))
PY
start "$RUN/gpsfake.log" gpsfake -q -1 -P "$GPSD_PORT" -c 0.02 "$RUN/walk.nmea"
gpsd_connected() { [ "$(json_query "j['status']['gpsd']['state']" status)" = connected ]; }
wait_for "the daemon's connection to gpsd" gpsd_connected
# A witness of what gpsd gave: gpspipe, a client of gpsd's own.
start "$RUN/gpspipe.json" gpspipe -w "127.0.0.1:$GPSD_PORT"
HIKELOG=$RUN/state/logs/$HIKE.log
wait_line "$RUN/backgrounderd.log" "woken for location"
echo "(the recorder is suspended between batches and woken every 250 m with the fixes that queued)"
grep -E "$HIKE.*(suspended|woken for location)" "$RUN/backgrounderd.log" | head -4 | sed 's/^.*\] /  daemon: /'
claim "the recorder was suspended and woken for location while the screen was locked" \
    grep -qE "$HIKE.*suspended" "$RUN/backgrounderd.log"
for _ in $(seq 1 1800); do
    gpsd_connected || break
    sleep 0.1
done
echo "(the walk is over; its log: $HIKELOG)"
tail -n 2 "$HIKELOG"
echo "\$ cat $RUN/state/data/$ALERTS/alerts.log     # RegionAlerts was relaunched for these"
cat "$RUN/state/data/$ALERTS/alerts.log" 2>/dev/null || echo "(no alerts)"
claim "RegionAlerts, not running, was relaunched on entering the Ojstrica region and on leaving it" \
    grep -qE " enter ojstrica$" "$RUN/state/data/$ALERTS/alerts.log"
claim "... and its exit was recorded after the entry" \
    sh -c "grep -E ' (enter|exit) ojstrica$' '$RUN/state/data/$ALERTS/alerts.log' | head -2 | tr '\n' ' ' | grep -qE 'enter ojstrica .*exit ojstrica'"

step "the recorded track"
GPSD_FIXES=$(python3 - "$RUN/gpspipe.json" <<'PY'
import json, sys
seen = set()
for line in open(sys.argv[1]):
    try:
        report = json.loads(line)
    except ValueError:
        continue
    if report.get("class") == "TPV" and report.get("mode", 0) >= 2 and "time" in report and "lat" in report:
        seen.add(report["time"])
print(len(seen))
PY
)
echo "gpspipe saw $GPSD_FIXES fixes from gpsd"
echo "\$ bgctl unlock; HikeRecorder export $RUN/walk.gpx"
"$BIN/bgctl" unlock --socket "$SOCKET"
# In front again, the recorder takes the batch that queued since its last wake.
RECORDED=0
for _ in $(seq 1 60); do
    RECORDED=$("$BIN/HikeRecorder" export "$RUN/walk.gpx" --state-dir "$RUN/state" | sed -nE 's/^wrote ([0-9]+) fixes.*/\1/p')
    [ "${RECORDED:-0}" -ge "$GPSD_FIXES" ] && break
    sleep 1
done
"$BIN/HikeRecorder" export "$RUN/walk.gpx" --state-dir "$RUN/state"
grep -m 3 "<trkpt" -A 2 "$RUN/walk.gpx"
claim "gpsd gave fixes at all" test "$GPSD_FIXES" -gt 800
claim "the recorder kept every fix gpsd gave ($RECORDED of $GPSD_FIXES), suspended or not" test "$RECORDED" -eq "$GPSD_FIXES"
claim "the GPX is well-formed XML (xmllint)" xmllint --noout "$RUN/walk.gpx"
GPSBABEL_POINTS=$(gpsbabel -t -i gpx -f "$RUN/walk.gpx" -o unicsv -F - | tail -n +2 | wc -l)
claim "gpsbabel reads the GPX back: $GPSBABEL_POINTS track points" test "$GPSBABEL_POINTS" -eq "$RECORDED"
echo "\$ HikeRecorder show --output $RUN/walk.svg     # the route to scale and the climb, as a picture"
SHOWN=$("$BIN/HikeRecorder" show --output "$RUN/walk.svg" --state-dir "$RUN/state")
echo "$SHOWN"
CLIMB=$(echo "$SHOWN" | sed -nE '1s/.*, \+([0-9]+) m.*/\1/p')
# The walk's true climb, from the generator's noise-free table: every rise summed.
TRUE_CLIMB=$(python3 - "$ROOT/Tests/Fixtures/gps/walk-bled.truth.csv" <<'PY'
import csv, sys
altitudes = [float(row["alt_m"]) for row in csv.DictReader(open(sys.argv[1]))]
print(round(sum(max(0.0, b - a) for a, b in zip(altitudes, altitudes[1:]))))
PY
)
claim "the recorded climb, +${CLIMB:-?} m, is within 10% of the walk's true $TRUE_CLIMB m (GPS altitude noise averaged out)" \
    python3 -c "import sys; sys.exit(0 if abs(${CLIMB:-0} - $TRUE_CLIMB) <= 0.1 * $TRUE_CLIMB else 1)"
claim "show drew the walk: $RUN/walk.svg is well-formed SVG with the route and the profile" \
    test "$(xmllint --xpath 'count(//*[local-name()="polyline"])' "$RUN/walk.svg")" -ge 2

PLAYER=org.backgrounder.samples.backgroundplayer
step "audio: BackgroundPlayer plays a short generated tune on with the screen locked"
# A little tune, generated here: eight bars of plucked notes, 44.1 kHz stereo. The player's
# sandbox reads only its own bundle and data; naming the tune on its command line shares that
# file with it (bgctl share), and the daemon opens it for the player where it lies.
make_tune "$RUN/tune.wav"
export BACKGROUNDER_SOCKET=$SOCKET
echo "\$ bgctl open $PLAYER; BackgroundPlayer play tune.wav; bgctl lock"
"$BIN/bgctl" open "$PLAYER" --socket "$SOCKET"
wait_state "$PLAYER" active
"$BIN/BackgroundPlayer" play "$RUN/tune.wav"
SHARED=$(json_query "[f['path'] for f in j['shared']['files']]" shared "$PLAYER")
claim "the tune is shared with the player where it lies, not copied: $SHARED" \
    test "$SHARED" = "['$(readlink -f "$RUN/tune.wav")']"
"$BIN/bgctl" lock --socket "$SOCKET"
if [ ${#PRIVATE_PULSE[@]} -gt 0 ]; then
    # No speakers here: parec on the null sink's monitor hears what played, from the lock on.
    start "$RUN/parec.log" "${PRIVATE_PULSE[@]}" parec -d null.monitor --raw --format=s16le --rate=44100 --channels=1 "$RUN/heard.raw"
    PAREC_PID=${PIDS[-1]}
fi
echo "\$ bgctl audio     # locked, in the background, still playing: it holds the audio assertion"
"$BIN/bgctl" audio --socket "$SOCKET"
claim "the player plays on in the background" test "$(app_state "$PLAYER")" = background
echo "\$ BackgroundPlayer pause     # paused in the background: suspended after the grace period"
"$BIN/BackgroundPlayer" pause
wait_state "$PLAYER" suspended
claim "paused in the background, the player is suspended" test "$(app_state "$PLAYER")" = suspended
echo "\$ BackgroundPlayer resume     # the daemon wakes it for the command; it plays the tune to the end"
"$BIN/BackgroundPlayer" resume
wait_state "$PLAYER" background
"$BIN/BackgroundPlayer" status
claim "woken by its resume command, the player is running in the background again" test "$(app_state "$PLAYER")" = background
# The tune ends: the player lets go of its audio and is suspended again.
wait_state "$PLAYER" suspended
if [ ${#PRIVATE_PULSE[@]} -gt 0 ]; then
    sleep 0.5
    kill -TERM -- "-$PAREC_PID" 2>/dev/null || true
    HEARD=$(python3 - "$RUN/heard.raw" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
samples = struct.unpack("<%dh" % (len(data) // 2), data)
loud = sum(1 for start in range(0, len(samples) - 441, 441)
           if max(abs(s) for s in samples[start:start + 441]) > 300)
print(f"{loud / 100:.1f}")
PY
)
    echo "parec heard $HEARD s of sound on the null sink's monitor while the player was in the background"
    # The tune is 9.6 s; it was locked within its first seconds.
    claim "the background playback was heard: $HEARD s of sound (at least 5 s)" \
        python3 -c "import sys; sys.exit(0 if float('$HEARD') >= 5 else 1)"
else
    echo "(your own PulseAudio played it; parec checks what was heard only on the private one)"
fi
"$BIN/bgctl" unlock --socket "$SOCKET"

READER=org.backgrounder.samples.feedreader
READERLOG=$RUN/state/logs/$READER.log
step "background fetch: FeedReader refreshes a feed from a local HTTP server on fetch and on its refresh task"
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
wait_line "$READERLOG" "${APP_LINE}opened: "
"$BIN/bgctl" home --socket "$SOCKET"
wait_state "$READER" suspended
refresh_requested() { [ "$(json_query "sum(1 for e in j['tasks'] if e.get('identifier') == '$READER.refresh')" tasks "$READER")" -ge 1 ]; }
wait_for "FeedReader's refresh task request" refresh_requested
cat "$READERLOG"
# A new item, a second later than the last fetch so Last-Modified tells them apart.
sleep 1
feed "Rowing regatta on Saturday" "Ice on the lake"
echo "\$ bgctl simulate fetch $READER     # a new item: newData, then suspended again"
"$BIN/bgctl" simulate fetch "$READER" --socket "$SOCKET"
wait_line "$READERLOG" "${APP_LINE}background fetch: "
wait_state "$READER" suspended
tail -n 2 "$READERLOG"
claim "a fetch with a new item says newData, and the app is suspended again" \
    grep -qE "${APP_LINE}background fetch: newData \(2 items, 1 new\)" "$READERLOG"
echo "\$ bgctl simulate fetch $READER     # nothing new: 304 Not Modified, noData"
"$BIN/bgctl" simulate fetch "$READER" --socket "$SOCKET"
wait_line "$READERLOG" "${APP_LINE}background fetch: " 2
wait_state "$READER" suspended
tail -n 1 "$READERLOG"
claim "a fetch with nothing new says noData" \
    test "$(grep -E "${APP_LINE}background fetch: " "$READERLOG" | tail -n 1 | cut -d' ' -f4)" = noData
sleep 1
feed "Swans are back" "Rowing regatta on Saturday" "Ice on the lake"
echo "\$ bgctl simulate task $READER $READER.refresh     # the refresh task submits the next one, then refreshes"
"$BIN/bgctl" simulate task "$READER" "$READER.refresh" --socket "$SOCKET"
wait_line "$READERLOG" "${APP_LINE}refresh task: "
wait_state "$READER" suspended
tail -n 3 "$READERLOG"
claim "the refresh task found the new item" grep -qE "${APP_LINE}refresh task: newData" "$READERLOG"
echo "\$ bgctl tasks $READER"
"$BIN/bgctl" tasks "$READER" --socket "$SOCKET"
echo "\$ FeedReader items"
"$BIN/FeedReader" items --state-dir "$RUN/state"

COMPACTOR=org.backgrounder.samples.compactor
COMPACTORLOG=$RUN/state/logs/$COMPACTOR.log
JOURNAL=$RUN/state/data/$COMPACTOR/journal.sqlite
step "processing: Compactor compacts its SQLite journal in a processing task that needs external power"
echo "\$ bgctl open $COMPACTOR; bgctl home     # entries added and pruned: free pages pile up; a task is submitted"
"$BIN/bgctl" open "$COMPACTOR" --socket "$SOCKET"
wait_line "$COMPACTORLOG" "${APP_LINE}scheduled "
"$BIN/bgctl" home --socket "$SOCKET"
wait_state "$COMPACTOR" suspended
cat "$COMPACTORLOG"
echo "\$ bgctl tasks $COMPACTOR     # it waits for the device to be idle (and on power)"
"$BIN/bgctl" tasks "$COMPACTOR" --socket "$SOCKET"
BEFORE=$(stat -c %s "$JOURNAL")
echo "journal.sqlite: $BEFORE bytes"
echo "\$ bgctl simulate task $COMPACTOR $COMPACTOR.compact     # runs it now: incremental vacuum in steps"
"$BIN/bgctl" simulate task "$COMPACTOR" "$COMPACTOR.compact" --socket "$SOCKET"
wait_line "$COMPACTORLOG" "${APP_LINE}(compacted|compaction stopped|compaction failed)"
wait_state "$COMPACTOR" suspended
tail -n 2 "$COMPACTORLOG"
AFTER=$(stat -c %s "$JOURNAL")
echo "journal.sqlite: $AFTER bytes"
claim "the journal is smaller after the processing task ($BEFORE -> $AFTER bytes)" test "$AFTER" -lt "$BEFORE"

PODCASTS=org.backgrounder.samples.podcasts
PODCASTSLOG=$RUN/state/logs/$PODCASTS.log
step "background transfers: Podcasts downloads a podcast's episodes while it is not running"
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
wait_line "$PODCASTSLOG" "${APP_LINE}exiting"
cat "$PODCASTSLOG"
claim "Podcasts handed its 3 episodes to background downloads" test "$(lines_matching "$PODCASTSLOG" "${APP_LINE}downloading ")" -eq 3
echo "# the daemon downloads them, then launches the app into handleEventsForBackgroundURLSession"
echo "\$ bgctl transfers"
"$BIN/bgctl" transfers --socket "$SOCKET"
wait_line "$PODCASTSLOG" "${APP_LINE}all finished downloads filed" 1 300
grep -E "${APP_LINE}(launched|background session|episode|all finished)" "$PODCASTSLOG" | tail -n +2
echo "\$ Podcasts list"
"$BIN/Podcasts" list --state-dir "$RUN/state"
claim "the daemon downloaded all 3 episodes and relaunched the app to file them" \
    test "$(lines_matching "$PODCASTSLOG" "${APP_LINE}episode ")" -eq 3
echo "# to hear them: BackgroundPlayer play $RUN/state/data/$PODCASTS/Episodes"

step "the daemon after it all"
claim "backgrounderd is still running" kill -0 "$DAEMON_PID"
echo
echo "demo: all $CLAIMS claims held"

if [ "$KEEP" = "--keep" ]; then
    echo
    echo "Running. Try: $BIN/bgctl status --socket $SOCKET    (logs in $RUN; Ctrl-C stops everything)"
    wait
fi
