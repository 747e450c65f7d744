#!/usr/bin/env bash
# MPRIS (issue 15): the daemon's player for a suspended BackgroundPlayer beside a reference
# player, Tests/Fixtures/dbus/mpris_player.py (python-dbus, the player answering for itself), on
# one private dbus-daemon, measured with the client people use, playerctl:
#   read     `playerctl -p NAME metadata title` (ListNames, GetAll, one property), hyperfine
#            over 100 runs each, and the ratio of the means
#   wake     `playerctl play-pause` on the suspended player until `bgctl ps` shows it running
#            again, then `pause` and the wait until it is suspended again; the median over the
#            rounds (the wake includes thawing its cgroup and the command reaching the app)
# Timing is printed, never asserted.
#
#   scripts/bench-mpris.sh                 the debug build (swift build --build-tests), 10 rounds
#   scripts/bench-mpris.sh --release --rounds 20
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=10
CONFIG=debug
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --release) CONFIG=release; shift ;;
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-mpris: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done
for tool in hyperfine playerctl dbus-daemon pulseaudio; do
    command -v "$tool" >/dev/null || { echo "bench-mpris: $tool is missing (scripts/setup.sh installs it)" >&2; exit 1; }
done
[ "$CONFIG" = release ] && swift build -c release --product backgrounderd >/dev/null && swift build -c release --product bgctl >/dev/null
BIN=$(swift build -c "$CONFIG" --show-bin-path)
[ -x "$BIN/backgrounderd" ] || { echo "bench-mpris: no $BIN/backgrounderd; build it first" >&2; exit 1; }
PLAYER=Bundles/BackgroundPlayer.bundle
[ -x "$PLAYER/BackgroundPlayer" ] || { echo "bench-mpris: no $PLAYER; run scripts/setup.sh" >&2; exit 1; }

RUN=$(mktemp -d /tmp/bgmpris-XXXXXX)
# Apps run under uids of their own when the daemon is root: they pass through this directory.
chmod 711 "$RUN"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    sleep 1
    rm -rf "$RUN"
}
[ -n "${BENCH_KEEP:-}" ] || trap cleanup EXIT
. scripts/private-pulse.sh
start_private_pulse "$RUN" || { echo "bench-mpris: PulseAudio did not start: $(cat "$RUN/pulse.log")" >&2; exit 1; }
PIDS+=("$PULSE_PID")
cat >"$RUN/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$RUN/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
EOF
dbus-daemon --nofork --config-file="$RUN/bus.conf" >"$RUN/bus.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do [ -S "$RUN/bus" ] && break; sleep 0.1; done
export DBUS_SESSION_BUS_ADDRESS="unix:path=$RUN/bus" DBUS_SYSTEM_BUS_ADDRESS="unix:path=$RUN/no-system-bus"
export BACKGROUNDER_SOCKET="$RUN/d.sock"
mkdir -p -m 755 "$RUN/bundles"
cp -R "$PLAYER" "$RUN/bundles/"
ID=org.backgrounder.samples.backgroundplayer
"$BIN/backgrounderd" --bundles "$RUN/bundles" --socket "$RUN/d.sock" --state-dir "$RUN/state" \
    --pulse-server "unix:$RUN/pulse/native" --gpsd 127.0.0.1:1 --suspend-grace 1 >"$RUN/daemon.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do "$BIN/bgctl" status >/dev/null 2>&1 && break; sleep 0.1; done
# In the app's data directory: the sandbox lets it read there, and not in $RUN.
MUSIC="$RUN/state/data/$ID/music"
mkdir -p "$MUSIC"
/usr/bin/python3 - "$MUSIC" <<'EOF'
import math, struct, sys, wave
for name, frequency in (("1-low.wav", 330), ("2-high.wav", 880)):
    with wave.open(f"{sys.argv[1]}/{name}", "wb") as out:
        out.setnchannels(2); out.setsampwidth(2); out.setframerate(44100)
        out.writeframes(b"".join(struct.pack("<hh", v, v) for v in (
            int(12000 * math.sin(2 * math.pi * frequency * i / 44100)) for i in range(44100 * 60))))
EOF
chmod 644 "$MUSIC"/*.wav
/usr/bin/python3 Tests/Fixtures/dbus/mpris_player.py --address "$DBUS_SESSION_BUS_ADDRESS" \
    --record "$RUN/reference.jsonl" --name reference >"$RUN/reference.log" 2>&1 &
PIDS+=($!)

NAME=backgrounder.org.backgrounder.samples.backgroundplayer
state() { "$BIN/bgctl" ps --json | /usr/bin/python3 -c "import json,sys; print(next(a['state'] for a in json.load(sys.stdin)['apps'] if a['id']=='$ID'))"; }
wait_state() {
    for _ in $(seq 1 400); do [ "$(state)" = "$1" ] && return 0; sleep 0.025; done
    echo "bench-mpris: $ID never became $1" >&2
    exit 1
}
"$PLAYER/BackgroundPlayer" play "$MUSIC" >/dev/null
for _ in $(seq 1 100); do [ "$(playerctl -p $NAME status 2>/dev/null)" = Playing ] && break; sleep 0.1; done
playerctl -p $NAME pause
wait_state suspended

echo "read: playerctl metadata title, the daemon's player (app suspended) beside the reference player"
hyperfine -N --warmup 5 --runs 100 --export-json "$RUN/read.json" \
    "playerctl -p $NAME metadata title" "playerctl -p reference metadata title" | grep -E "Benchmark|Time"
/usr/bin/python3 - "$RUN/read.json" <<'EOF'
import json, sys
ours, reference = (r["mean"] * 1000 for r in json.load(open(sys.argv[1]))["results"])
print(f"read: ours {ours:.2f} ms, reference {reference:.2f} ms, ratio {ours / reference:.2f}")
EOF

echo "wake: play-pause on the suspended player until it runs again (then pause, and suspended again)"
times=()
for round in $(seq 1 "$ROUNDS"); do
    start=$(date +%s%N)
    playerctl -p $NAME play-pause
    wait_state background
    end=$(date +%s%N)
    times+=($(((end - start) / 1000000)))
    playerctl -p $NAME pause
    wait_state suspended
done
printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "wake: median %d ms, min %d, max %d over %d rounds\n", a[int((NR + 1) / 2)], a[1], a[NR], NR }'
