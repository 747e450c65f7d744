#!/usr/bin/env bash
# Life-cycle benchmarks, each beside a baseline or a goal, in one run (release build):
#   1. freeze+thaw round trip for 1, 10 and 100 apps, cgroup freezer and signals;
#   2. relaunch of a terminated app for an event (push) until its didFinishLaunching,
#      beside a plain fork/exec of the same binary to main, and beside a second daemon with
#      --sandbox off (the sandbox's launch cost), relaunches alternating between the two;
#   3. idle cost: 20 suspended apps, nothing happening, the daemon's CPU time and context
#      switches over IDLE_SECONDS (60 by default; goal: none at all).
set -euo pipefail
cd "$(dirname "$0")/.."
for product in backgrounderd bgbench bgbundle TestApp; do swift build -c release --product "$product"; done
BIN=$(swift build -c release --show-bin-path)
RUN=$(mktemp -d /tmp/bgbench-XXXXXX)
# The socket directory too: 0711, so a root daemon's apps, under uids of their own, pass
# through to their bundles and the audio socket, and nobody may list it.
chmod 711 "$RUN"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$RUN"
}
trap cleanup EXIT
# INT (Ctrl-C) or TERM ends the script through its EXIT trap, once the step running has ended
# (bash runs no trap on a signal's default action): a benchmark stopped by hand leaves no
# daemon, PulseAudio or mount behind.
trap 'exit 143' TERM
trap 'exit 130' INT

make_bundle() { # NAME MODES...
    local name=$1
    shift
    local modes=""
    for mode in "$@"; do modes+="<string>$mode</string>"; done
    cat >"$RUN/$name.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>org.bench.${name,,}</string>
<key>CFBundleName</key><string>$name</string>
<key>CFBundleExecutable</key><string>TestApp</string>
<key>UIBackgroundModes</key><array>$modes</array>
<key>TestAppStampsMain</key><true/>
</dict></plist>
PLIST
    "$BIN/bgbundle" --name "$name" --executable "$BIN/TestApp" --info-plist "$RUN/$name.plist" --output "$RUN/bundles" >/dev/null
}

echo "== 1. freeze + thaw"
# BENCH_QUICK=1 (scripts/bench.sh --quick): fewer apps, rounds and relaunches, a 10 s idle window.
if [ "${BENCH_QUICK:-}" = 1 ]; then
    "$BIN/bgbench" freeze --apps 1,10 --rounds 5
else
    "$BIN/bgbench" freeze --apps 1,10,100 --rounds 20
fi

echo
echo "== 2. relaunch for an event"
make_bundle Pushed remote-notification
for i in $(seq 1 20); do make_bundle "Idle$i"; done
# Real servers with nothing to say, so the daemon has no reconnect timers: gpsd with no
# device, and a private PulseAudio with a null sink.
GPSD_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid gpsd -N -n -S "$GPSD_PORT" -F "$RUN/gpsd.sock" >"$RUN/gpsd.log" 2>&1 &
PIDS+=($!)
# shellcheck source=scripts/private-pulse.sh
. "$(dirname "$0")/private-pulse.sh"
start_private_pulse "$RUN" || echo "bench-lifecycle: PulseAudio did not start; see $RUN/pulse.log" >&2
PIDS+=("$PULSE_PID")
SOCKET="$RUN/d.sock"
setsid "$BIN/backgrounderd" --socket "$SOCKET" --state-dir "$RUN/state" --bundles "$RUN/bundles" \
    --gpsd "127.0.0.1:$GPSD_PORT" --pulse-server "unix:$RUN/pulse/native" --suspend-grace 1 \
    --ignore-memory-pressure --log-level warning >"$RUN/daemon.log" 2>&1 &
DAEMON=$!
PIDS+=($DAEMON)
for _ in $(seq 1 100); do [ -S "$SOCKET" ] && break; sleep 0.1; done
OFF_SOCKET="$RUN/off.sock"
setsid "$BIN/backgrounderd" --socket "$OFF_SOCKET" --state-dir "$RUN/state-off" --bundles "$RUN/bundles" \
    --gpsd "127.0.0.1:$GPSD_PORT" --pulse-server "unix:$RUN/pulse/native" --suspend-grace 1 \
    --ignore-memory-pressure --log-level warning --sandbox off >"$RUN/daemon-off.log" 2>&1 &
OFF_DAEMON=$!
PIDS+=($OFF_DAEMON)
for _ in $(seq 1 100); do [ -S "$OFF_SOCKET" ] && break; sleep 0.1; done
export BACKGROUNDER_SOCKET=$SOCKET
"$BIN/bgctl" status --json | python3 -c 'import json, sys; print("sandbox:", json.load(sys.stdin)["status"].get("sandbox"))'
"$BIN/bgctl" open org.bench.pushed >/dev/null 2>&1 || .build/debug/bgctl open org.bench.pushed >/dev/null
BACKGROUNDER_SOCKET=$OFF_SOCKET "$BIN/bgctl" open org.bench.pushed >/dev/null
sleep 1
"$BIN/bgbench" relaunch --socket "$SOCKET" --bundle org.bench.pushed \
    --app-log "$RUN/state/logs/org.bench.pushed.log" --executable "$RUN/bundles/Pushed.bundle/TestApp" \
    --off-socket "$OFF_SOCKET" --off-app-log "$RUN/state-off/logs/org.bench.pushed.log" \
    --count "$([ "${BENCH_QUICK:-}" = 1 ] && echo 10 || echo 30)"
kill -TERM "$OFF_DAEMON"
wait "$OFF_DAEMON" 2>/dev/null || true

echo
echo "== 3. idle cost: 20 suspended apps"
CTL="$BIN/bgctl"
[ -x "$CTL" ] || CTL=.build/debug/bgctl
for i in $(seq 1 20); do "$CTL" open "org.bench.idle$i" >/dev/null; done
"$CTL" home >/dev/null
"$CTL" simulate memory-pressure --critical >/dev/null || true # end the pushed app's leftovers, if any
sleep 3
suspended=$("$CTL" ps --json | grep -c '"suspended"' || true)
echo "suspended apps: $suspended"
switches() { # "TID SWITCHES" for every thread of the daemon
    for task in /proc/$DAEMON/task/*; do
        echo "${task##*/} $(awk '/ctxt_switches/ {sum += $2} END {print sum}' "$task/status" 2>/dev/null)"
    done
}
ticks_before=$(awk '{print $14 + $15}' "/proc/$DAEMON/stat")
switches >"$RUN/switches.before"
if [ "${BENCH_QUICK:-}" = 1 ]; then IDLE_SECONDS=${IDLE_SECONDS:-10}; fi
sleep "${IDLE_SECONDS:-60}"
ticks_after=$(awk '{print $14 + $15}' "/proc/$DAEMON/stat")
switches >"$RUN/switches.after"
# Threads present in both samples (a reaper thread that ended in between would skew a sum).
total=$(join "$RUN/switches.before" "$RUN/switches.after" | awk '{sum += $3 - $2} END {print sum + 0}')
threads=$(wc -l <"$RUN/switches.after")
echo "over ${IDLE_SECONDS:-60} s: daemon CPU $((ticks_after - ticks_before)) ticks ($(getconf CLK_TCK)/s), context switches $total across $threads threads (goal: 0)"
python3 scripts/lib/benchrecord.py lifecycle "idle context switches per ${IDLE_SECONDS:-60} s, 20 suspended apps" switches - - "$total" 0
python3 scripts/lib/benchrecord.py lifecycle "idle CPU ticks per ${IDLE_SECONDS:-60} s, 20 suspended apps" ticks - - "$((ticks_after - ticks_before))" 0
python3 scripts/lib/benchrecord.py lifecycle "idle daemon threads, 20 suspended apps" threads - - "$threads"
join "$RUN/switches.before" "$RUN/switches.after" | awk '$3 != $2 {print $1, $3 - $2}' | while read -r tid count; do echo "  thread $tid ($(cat /proc/$DAEMON/task/$tid/comm 2>/dev/null)): $count switches"; done | head -5
