#!/usr/bin/env bash
# Daemon CPU while one app floods its audio stream's wake-up socket (two processes writing
# it as fast as it takes bytes) for 10 s, beside the same daemon idle for 10 s, against a
# private headless PulseAudio with a null sink. Also the slowest `bgctl ps` during the flood
# (the engine lock must stay free for the actor). CPU is utime+stime of the daemon from
# /proc/PID/stat, as a share of one core.
#
#   scripts/bench-doorbell.sh                 release build, 10 s a side
#   scripts/bench-doorbell.sh --debug --seconds 5
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=10
CONFIG=release
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) SECONDS_EACH=$2; shift 2 ;;
    --debug) CONFIG=debug; shift ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-doorbell: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done
for product in backgrounderd bgctl bgbundle TestApp; do swift build -c "$CONFIG" --product "$product" >/dev/null; done
BIN=$(swift build -c "$CONFIG" --show-bin-path)
RUN=$(mktemp -d /tmp/bgdoorbell-XXXXXX)
# Apps run under uids of their own when the daemon is root: they pass through this directory.
chmod 711 "$RUN"
DAEMON=""
PULSE=""
cleanup() {
    # The daemon ends its apps (the flooders with them) on SIGTERM; then PulseAudio. By pid only.
    for pid in $DAEMON $PULSE; do
        kill -TERM "$pid" 2>/dev/null || continue
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$RUN"
}
trap cleanup EXIT
# INT (Ctrl-C) or TERM ends the script through its EXIT trap, once the step running has ended
# (bash runs no trap on a signal's default action): a benchmark stopped by hand leaves no
# daemon, PulseAudio or mount behind.
trap 'exit 143' TERM
trap 'exit 130' INT

# shellcheck source=scripts/private-pulse.sh
. "$(dirname "$0")/private-pulse.sh"
start_private_pulse "$RUN" || { echo "bench-doorbell: PulseAudio did not start; see $RUN/pulse.log" >&2; exit 1; }
PULSE=$PULSE_PID
export PULSE_SERVER="unix:$RUN/pulse/native" PULSE_RUNTIME_PATH="$RUN/pulse" HOME="$RUN/pulse-home"

cat >"$RUN/Flooder.plist" <<'PLIST'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>org.backgrounder.bench.flooder</string>
<key>CFBundleName</key><string>Flooder</string>
<key>CFBundleExecutable</key><string>TestApp</string>
<key>TestAppBehavior</key><string>doorbell-flood</string>
</dict></plist>
PLIST
"$BIN/bgbundle" --name Flooder --executable "$BIN/TestApp" --info-plist "$RUN/Flooder.plist" --output "$RUN/bundles" >/dev/null
setsid "$BIN/backgrounderd" --socket "$RUN/d.sock" --state-dir "$RUN/state" --bundles "$RUN/bundles" \
    --pulse-server "unix:$RUN/pulse/native" --gpsd 127.0.0.1:1 --ignore-memory-pressure --log-level warning \
    >"$RUN/daemon.log" 2>&1 </dev/null &
DAEMON=$!

python3 - "$BIN" "$RUN" "$DAEMON" "$SECONDS_EACH" "$CONFIG" <<'PY'
import json, os, subprocess, sys, time

bin_dir, run, daemon, seconds, config = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
sock = f"{run}/d.sock"
app = "org.backgrounder.bench.flooder"
CLK = os.sysconf("SC_CLK_TCK")

def bgctl(*args):
    result = subprocess.run([f"{bin_dir}/bgctl", *args, "--socket", sock, "--json"], capture_output=True, text=True)
    if result.returncode != 0:
        return None
    # {"version": 1, KEY: VALUE} (docs/JSON.md): the value.
    return next(value for key, value in json.loads(result.stdout).items() if key != "version")

def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK

for _ in range(150):
    status = bgctl("status")
    if status and status.get("pulseAudio", {}).get("state") == "connected":
        break
    time.sleep(0.1)
else:
    sys.exit(f"the daemon did not reach PulseAudio; see {run}/daemon.log")

def measure(label, probe):
    start_cpu, start = cpu(daemon), time.monotonic()
    slowest = 0.0
    while time.monotonic() - start < seconds:
        if probe:
            before = time.monotonic()
            assert bgctl("ps") is not None, "ps failed"
            slowest = max(slowest, time.monotonic() - before)
        time.sleep(0.25)
    share = (cpu(daemon) - start_cpu) / (time.monotonic() - start)
    print(f"{label:<34} daemon CPU {share * 100:6.1f} % of a core" + (f", slowest ps {slowest * 1000:.0f} ms" if probe else ""))

print(f"bench-doorbell ({config} build, {seconds:.0f} s a side)")
measure("idle", False)
bgctl("open", app)
log = f"{run}/state/logs/{app}.log"
for _ in range(200):
    if os.path.exists(log) and "flooding the doorbell" in open(log).read():
        break
    time.sleep(0.1)
else:
    sys.exit(f"the flooder did not start: {open(log).read() if os.path.exists(log) else 'no log'}")
time.sleep(1)
measure("one app flooding its doorbell", True)
assert os.path.exists(f"/proc/{daemon}"), "the daemon died"
print("the daemon is alive and serving")
PY
