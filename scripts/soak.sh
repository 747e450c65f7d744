#!/usr/bin/env bash
# A soak run (not in CI): the hiking, music and region scenario of the demo, with N apps
# cycling through open, home, suspension, relaunch, SIGKILL and daemon restarts, for as long
# as asked. Once a minute it records the daemon's resident memory, open descriptors, threads
# and CPU time; flat is the goal. Writes soak.csv and soak.svg in the run directory (or the
# directory given) and prints the first and last readings.
#
#   scripts/soak.sh [--minutes N] [--apps N] [--out DIR]
set -eEuo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MINUTES=30
APPS=50
OUT=
while [ $# -gt 0 ]; do
    case "$1" in
    --minutes) MINUTES=$2; shift 2 ;;
    --apps) APPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h | --help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "soak: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
done

RUN=${BACKGROUNDER_SOAK_DIR:-/tmp/backgrounder-soak-$(id -u)}
OUT=${OUT:-$RUN}
BIN=$ROOT/.build/debug
SOCKET=$RUN/backgrounderd.sock
PIDS=()
fail() {
    echo "soak: $* (logs in $RUN)" >&2
    exit 1
}
trap 'status=$?; echo "soak: scripts/soak.sh:$LINENO: \`$BASH_COMMAND\` exited $status (logs in $RUN)" >&2; exit $status' ERR
# shellcheck source=lib/run.sh
source scripts/lib/run.sh

scripts/setup.sh
swift build --product TestApp
rm -rf "$RUN"
mkdir -p -m 711 "$RUN"
mkdir -p "$OUT"

# N idle TestApp bundles with the fetch mode, beside the samples.
mkdir -p "$RUN/bundles"
for n in $(seq 1 "$APPS"); do
    cat >"$RUN/soak$n.plist" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>org.backgrounder.soak.app$n</string>
<key>CFBundleName</key><string>Soak$n</string>
<key>CFBundleExecutable</key><string>TestApp</string>
<key>UIBackgroundModes</key><array><string>fetch</string></array>
<key>TestAppBehavior</key><string>idle</string>
</dict></plist>
EOF
    "$BIN/bgbundle" --name "Soak$n" --executable "$BIN/TestApp" --info-plist "$RUN/soak$n.plist" --output "$RUN/bundles" >/dev/null
done

GPSD_PORT=$(free_port)
start_pulse
DAEMON_ARGS=(--bundles "$ROOT/Bundles" --bundles "$RUN/bundles" --socket "$SOCKET" --state-dir "$RUN/state"
    --gpsd "127.0.0.1:$GPSD_PORT" "${PULSE_ARGS[@]}" --suspend-grace 2 --task-budget 8)
start_daemon() {
    start "$RUN/backgrounderd.log" "$BIN/backgrounderd" "${DAEMON_ARGS[@]}"
    DAEMON_PID=${PIDS[-1]}
    wait_for "backgrounderd" "$BIN/bgctl" status --socket "$SOCKET"
}
start_daemon
bgctl() { "$BIN/bgctl" "$@" --socket "$SOCKET"; }

# The walk, replayed in a loop by gpsfake; the recorder and the region alerts follow it.
HIKE=org.backgrounder.samples.hikerecorder
ALERTS=org.backgrounder.samples.regionalerts
PLAYER=org.backgrounder.samples.backgroundplayer
bgctl authorize "$HIKE" location always >/dev/null
bgctl authorize "$ALERTS" location always >/dev/null
"$BIN/RegionAlerts" add ojstrica 46.35810 14.08340 80 --state-dir "$RUN/state" >/dev/null
start "$RUN/gpsfake.log" gpsfake -q -P "$GPSD_PORT" -c 0.05 "$ROOT/Tests/Fixtures/gps/walk-bled.nmea"
make_tune "$RUN/tune.wav"
TUNE=$(json_query "j['import']['destinations'][0]" import "$PLAYER" "$RUN/tune.wav")
export BACKGROUNDER_SOCKET=$SOCKET

scenario() {
    bgctl open "$ALERTS" >/dev/null || true
    bgctl quit "$ALERTS" >/dev/null || true
    bgctl open "$HIKE" >/dev/null || true
    bgctl open "$PLAYER" >/dev/null || true
    "$BIN/BackgroundPlayer" play "$TUNE" >/dev/null 2>&1 || true
    # Home: the recorder and the player go on in the background, as the apps below come and go.
    bgctl home >/dev/null || true
}
scenario

# One reading of the daemon: minute, pid, RSS KiB, descriptors, threads, CPU s in all.
reading() {
    local minute=$1 pid=$DAEMON_PID
    local rss threads fds ticks
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
    threads=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status")
    fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
    ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    echo "$minute,$pid,$rss,$fds,$threads,$(python3 -c "print(round($ticks / $(getconf CLK_TCK), 2))")"
}

CSV=$OUT/soak.csv
echo "minute,pid,rss_kib,fds,threads,cpu_s" >"$CSV"
reading 0 | tee -a "$CSV"
end=$((SECONDS + MINUTES * 60))
minute=0
cycle=0
while [ "$SECONDS" -lt "$end" ]; do
    minute_end=$((SECONDS + 60))
    while [ "$SECONDS" -lt "$minute_end" ]; do {
        cycle=$((cycle + 1))
        n=$((cycle % APPS + 1))
        app=org.backgrounder.soak.app$n
        # open (launch or thaw), home (suspended after the grace), every 7th SIGKILLed while
        # suspended (relaunched on its next open), a fetch for every 5th.
        bgctl open "$app" >/dev/null || true
        bgctl home >/dev/null || true
        if [ $((cycle % 7)) -eq 0 ]; then
            pid=$(json_query "next((a['pid'] for a in j['apps'] if a['id'] == '$app'), None)" ps || true)
            [ -n "$pid" ] && [ "$pid" != None ] && kill -KILL "$pid" 2>/dev/null || true
        fi
        [ $((cycle % 5)) -eq 0 ] && bgctl simulate fetch "$app" >/dev/null 2>&1 || true
        # Music on: play again when the tune has ended.
        [ $((cycle % 10)) -eq 0 ] && { "$BIN/BackgroundPlayer" play "$TUNE" >/dev/null 2>&1 || true; }
        sleep 0.5
    } 2>>"$RUN/cycle-errors.log"; done
    minute=$((minute + 1))
    reading "$minute" | tee -a "$CSV"
    # A daemon restart every 10 minutes: SIGTERM, a new daemon on the same state.
    if [ $((minute % 10)) -eq 0 ] && [ "$SECONDS" -lt "$end" ]; then
        kill -TERM "$DAEMON_PID"
        while kill -0 "$DAEMON_PID" 2>/dev/null; do sleep 0.1; done
        start_daemon
        scenario
        echo "# minute $minute: daemon restarted (pid $DAEMON_PID)" | tee -a "$CSV"
    fi
done
echo "soak: $cycle app cycles in $MINUTES minutes; readings in $CSV"

# The plot: one panel per measure, minute on x, as SVG (no plotting package needed).
python3 - "$CSV" "$OUT/soak.svg" <<'PY'
import csv, sys
rows = [r for r in csv.reader(line for line in open(sys.argv[1]) if not line.startswith("#"))][1:]
minutes = [int(r[0]) for r in rows]
series = [("RSS (MiB)", [int(r[2]) / 1024 for r in rows]), ("descriptors", [int(r[3]) for r in rows]),
          ("threads", [int(r[4]) for r in rows]),
          ("CPU s per minute", [0] + [max(0.0, float(b[5]) - float(a[5])) if a[1] == b[1] else float(b[5])
                                      for a, b in zip(rows, rows[1:])])]
width, height, pad = 640, 150, 40
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height * len(series)}" font-family="sans-serif" font-size="11">']
for index, (name, values) in enumerate(series):
    top = index * height
    low, high = 0, max(values + [1e-9]) * 1.2
    x = lambda m: pad + (width - 2 * pad) * m / max(1, max(minutes))
    y = lambda v: top + height - pad / 2 - (height - pad) * (v - low) / (high - low)
    points = " ".join(f"{x(m):.1f},{y(v):.1f}" for m, v in zip(minutes, values))
    svg.append(f'<text x="{pad}" y="{top + 14}">{name}: first {values[0]:.1f}, last {values[-1]:.1f}, max {max(values):.1f}</text>')
    svg.append(f'<line x1="{pad}" y1="{y(0):.1f}" x2="{width - pad}" y2="{y(0):.1f}" stroke="#999"/>')
    svg.append(f'<polyline fill="none" stroke="#1565c0" stroke-width="1.5" points="{points}"/>')
svg.append(f'<text x="{width / 2}" y="{height * len(series) - 4}">minute</text></svg>')
open(sys.argv[2], "w").write("\n".join(svg))
PY
echo "soak: plot in $OUT/soak.svg"
head -2 "$CSV" | tail -1
tail -1 "$CSV"
