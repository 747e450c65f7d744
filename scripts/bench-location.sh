#!/usr/bin/env bash
# Location benchmarks (release build), each beside a baseline in the same run:
#   1. the filters: fixes per second through significant change + region monitor, 20 to 100k regions;
#   2. gpsd to app callback latency, p50/p99, beside gpspipe -w receiving the same fixes: gpsd
#      reads a pty this script writes the walk into, so both latencies are measured from the
#      moment each fix's sentences were written;
#   3. wakeups on a walk: app wakeups with significant changes vs callbacks with standard updates.
set -euo pipefail
cd "$(dirname "$0")/.."
for product in backgrounderd bgctl bgbench bgbundle TestApp; do swift build -c release --product "$product" >/dev/null; done
BIN=$(swift build -c release --show-bin-path)
RUN=$(mktemp -d /tmp/bgloc-XXXXXX)
# Apps run under uids of their own when the daemon is root: they pass through this directory.
chmod 711 "$RUN"
# The daemon is waited for after SIGTERM: it unmounts the apps' data volumes on its way out,
# and a removal that ran first left them mounted (and their images deleted) under /tmp.
cleanup() {
    if [ -f "$RUN/gpsd.pid" ]; then kill "$(cat "$RUN/gpsd.pid")" 2>/dev/null || true; fi
    pkill -f "$RUN" 2>/dev/null || true
    for _ in $(seq 1 100); do pgrep -f "$RUN" >/dev/null || break; sleep 0.1; done
    rm -rf "$RUN"
}
trap cleanup EXIT
# INT (Ctrl-C) or TERM ends the script through its EXIT trap, once the step running has ended
# (bash runs no trap on a signal's default action): a benchmark stopped by hand leaves no
# daemon, PulseAudio or mount behind.
trap 'exit 143' TERM
trap 'exit 130' INT

echo "== 1. filters"
"$BIN/bgbench" filters

make_bundle() { # NAME BEHAVIOR
    cat >"$RUN/$1.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>org.bench.${1,,}</string>
<key>CFBundleName</key><string>$1</string>
<key>CFBundleExecutable</key><string>TestApp</string>
<key>TestAppBehavior</key><string>$2</string>
<key>UIBackgroundModes</key><array><string>location</string></array>
<key>NSLocationAlwaysAndWhenInUseUsageDescription</key><string>Benchmarks.</string>
</dict></plist>
PLIST
    "$BIN/bgbundle" --name "$1" --executable "$BIN/TestApp" --info-plist "$RUN/$1.plist" --output "$RUN/bundles" >/dev/null
}
make_bundle Standard locate
make_bundle Significant significant

echo
echo "== 2 and 3. a walk written into gpsd's pty: latency, and wakeups"
python3 - "$BIN" "$RUN" "$PWD/Tests/Fixtures/gps/walk-bled.nmea" <<'PY'
import json, os, pty, re, socket, subprocess, sys, threading, time
sys.path.insert(0, "scripts/lib")
import applog

bin_dir, run, walk = sys.argv[1:4]
epochs, epoch = [], []
for line in open(walk):
    if not line.startswith("$"):
        continue
    epoch.append(line.encode())
    if line.startswith("$GPRMC"):
        epochs.append(epoch)
        epoch = []

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

master, slave = pty.openpty()
device = os.ttyname(slave)
port = free_port()
gpsd = subprocess.Popen(["gpsd", "-N", "-n", "-b", "-S", str(port), device],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
# Its command line names a pty, not the run directory: the shell's cleanup finds it by this.
with open(f"{run}/gpsd.pid", "w") as file:
    file.write(str(gpsd.pid))
socket_path = f"{run}/sock"
env = dict(os.environ, BACKGROUNDER_SOCKET=socket_path)
daemon = subprocess.Popen([f"{bin_dir}/backgrounderd", "--bundles", f"{run}/bundles", "--socket", socket_path,
                           "--state-dir", f"{run}/state", "--gpsd", f"127.0.0.1:{port}", "--pulse-server",
                           f"unix:{run}/none", "--ignore-memory-pressure"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
def bgctl(*args):
    for _ in range(100):
        if subprocess.run([f"{bin_dir}/bgctl", *args], env=env, capture_output=True).returncode == 0:
            return
        time.sleep(0.1)
    sys.exit(f"bgctl {' '.join(args)} failed")
time.sleep(0.5)
for app in ("standard", "significant"):
    bgctl("authorize", f"org.bench.{app}", "location", "always")
bgctl("open", "org.bench.significant")
bgctl("open", "org.bench.standard")      # in front; the other one goes to the background
pipe = subprocess.Popen(["stdbuf", "-oL", "gpspipe", "-w", "-u", f"127.0.0.1:{port}"], stdout=subprocess.PIPE, text=True,
                        start_new_session=True)
# Read as it writes: a pipe left unread fills (64 KiB, about 100 fixes of JSON) and gpspipe then
# blocks, so the baseline saw a tenth of the walk, late.
pipe_lines = []
def read_pipe():
    for line in pipe.stdout:
        pipe_lines.append(line)
reader = threading.Thread(target=read_pipe, daemon=True)
reader.start()
time.sleep(2)

if os.environ.get("BENCH_QUICK") == "1":  # scripts/bench.sh --quick: the first 200 fixes
    epochs = epochs[:200]
written = {}           # fix time (s) -> CLOCK_REALTIME when its epoch was written
interval = 0.1
for sentences in epochs:
    match = re.match(rb"\$GPRMC,(\d\d)(\d\d)(\d\d)\.\d+,A", sentences[-1])
    now = time.time()
    for sentence in sentences:
        os.write(master, sentence)
    if match:
        h, m, s = (int(x) for x in match.groups())
        written[h * 3600 + m * 60 + s] = now
    time.sleep(interval)
time.sleep(2)
pipe.terminate()
reader.join(timeout=10)
piped = {}
for line in pipe_lines:
    line = line.rstrip("\n")
    stamp, _, payload = line.partition(": ")
    try:
        report = json.loads(payload)
    except ValueError:
        continue
    if report.get("class") == "TPV" and report.get("mode", 0) >= 2 and "time" in report:
        t = report["time"][11:19]
        key = int(t[0:2]) * 3600 + int(t[3:5]) * 60 + int(t[6:8])
        received = time.mktime(time.strptime(stamp[:19], "%Y-%m-%d %H:%M:%S")) - time.timezone + float("0" + stamp[19:])
        piped.setdefault(key, received)
app = {}
significant = 0
for name, target in (("standard", app), ("significant", None)):
    for line in applog.lines(f"{run}/state/logs/org.bench.{name}.log"):
        fields = line.split()
        if fields and fields[0] == "fix":
            if target is None:
                significant += 1
                continue
            t = float(fields[3][2:]); key = int(t) % 86400
            target.setdefault(key, int(fields[4][2:]) / 1e9)

def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

common = sorted(set(written) & set(piped) & set(app))
lat_pipe = [(piped[k] - written[k]) * 1000 for k in common]
lat_app = [(app[k] - written[k]) * 1000 for k in common]
print(f"fixes written {len(written)}, seen by gpspipe {len(piped)}, by the app {len(app)}, compared {len(common)}")
for name, values in (("gpspipe -w", lat_pipe), ("app callback", lat_app)):
    print(f"  {name:13s} p50 {percentile(values, 50):7.2f} ms   p99 {percentile(values, 99):7.2f} ms")
print(f"  ratio app/gpspipe: p50 {percentile(lat_app, 50) / percentile(lat_pipe, 50):.2f}x, "
      f"p99 {percentile(lat_app, 99) / percentile(lat_pipe, 99):.2f}x (goal at most 1.5x)")
sys.path.insert(0, "scripts/lib")
import benchrecord
for p in (50, 99):
    benchrecord.record("location", f"gpsd to app p{p}", "ms", "gpspipe -w", percentile(lat_pipe, p),
                       percentile(lat_app, p), goal=1.5 if p == 50 else None)
benchrecord.samples(lat_app, "location-app")
benchrecord.samples(lat_pipe, "location-gpspipe")
print()
print(f"wakeups over the walk ({len(written)} fixes, 77 min of fix time):")
print(f"  standard updates: {len(app)} callbacks")
print(f"  significant changes: {significant} wakeups ({len(app) / max(significant, 1):.0f}x fewer)")
for process in (pipe, daemon, gpsd):
    try:
        os.killpg(process.pid, 15)
    except ProcessLookupError:
        pass
# The daemon ends its apps and unmounts their data volumes as it stops: wait for that, or the
# run directory cannot be removed and the volumes stay mounted.
for process in (pipe, daemon, gpsd):
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.wait()
PY
