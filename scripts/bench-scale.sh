#!/usr/bin/env bash
# The scale curve (issue 26, item 9): the daemon with 1, 10, 100 and 1,000 small Python apps,
# each launched (bgctl open, one after the other) and then suspended; for each count:
#   launch     wall time to open them all, and to see them all suspended
#   memory     the daemon's resident memory (VmRSS) and threads, and both per app above the
#              daemon with no app
#   ps         `bgctl ps --json` wall time, the median of 5
#   idle       the daemon's voluntary and involuntary context switches over IDLE_SECONDS (10),
#              every thread, with all the apps suspended
# Suspend-all and thaw-all of the same counts, on the daemon's own freezer code with real
# cgroups and processes, are `bgbench freeze` (scripts/bench-lifecycle.sh). Flat per app is the
# goal. Each app is a Python program that checks in on the descriptor the daemon hands it and
# then waits on it, as an app with nothing to do would.
#
#   scripts/bench-scale.sh                 1 10 100 1000
#   scripts/bench-scale.sh --counts "1 10 100"
set -euo pipefail
cd "$(dirname "$0")/.."
COUNTS="1 10 100 1000"
if [ "${BENCH_QUICK:-}" = 1 ]; then COUNTS="1 10 100"; fi
while [ $# -gt 0 ]; do
    case "$1" in
    --counts) COUNTS=$2; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-scale: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done
for product in backgrounderd bgctl; do swift build -c release --product "$product" >/dev/null; done
BIN=$(swift build -c release --show-bin-path)
RUN=$(mktemp -d /tmp/bgscale-XXXXXX)
# Apps run under uids of their own when the daemon is root: they pass through this directory.
chmod 711 "$RUN"
cleanup() {
    # A daemon stopping with hundreds of apps takes a while: it ends them and unmounts their
    # volumes before it exits.
    pkill -TERM -f "$RUN/state" 2>/dev/null || true
    for _ in $(seq 1 240); do pgrep -f "$RUN/state" >/dev/null || break; sleep 0.5; done
    # The daemons' logs outlive the run, for a failure's cause.
    mkdir -p /tmp/bench-scale-logs && cp "$RUN"/*.log /tmp/bench-scale-logs/ 2>/dev/null || true
    rm -rf "$RUN"
}
trap cleanup EXIT
# INT (Ctrl-C) or TERM ends the script through its EXIT trap, once the step running has ended
# (bash runs no trap on a signal's default action): a benchmark stopped by hand leaves no
# daemon, PulseAudio or mount behind.
trap 'exit 143' TERM
trap 'exit 130' INT

python3 - "$BIN" "$RUN" "$COUNTS" <<'PY'
import json, os, statistics, subprocess, sys, time

bin_dir, run, counts = sys.argv[1], sys.argv[2], [int(c) for c in sys.argv[3].split()]
sys.path.insert(0, "scripts/lib")
import benchrecord

APP = """#!/usr/bin/python3 -S
import os, socket
connection = socket.socket(fileno=int(os.environ["BACKGROUNDER_FD"]))
bundle = os.environ["BACKGROUNDER_BUNDLE_ID"]
connection.sendall(('{"class":"CHECKIN","id":1,"bundle":"%s"}\\n' % bundle).encode())
while connection.recv(65536):
    pass
"""
PLIST = """<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>org.bench.scale{i}</string>
<key>CFBundleName</key><string>Scale{i}</string>
<key>CFBundleExecutable</key><string>Scale</string>
</dict></plist>
"""

def make_bundles(directory, count):
    os.makedirs(directory, mode=0o755)
    for i in range(count):
        bundle = f"{directory}/Scale{i}.bundle"
        os.makedirs(bundle, mode=0o755)
        with open(f"{bundle}/Info.plist", "w") as out:
            out.write(PLIST.format(i=i))
        with open(f"{bundle}/Scale", "w") as out:
            out.write(APP)
        os.chmod(f"{bundle}/Scale", 0o755)
        os.chmod(f"{bundle}/Info.plist", 0o644)

def status(pid):
    fields = {}
    for line in open(f"/proc/{pid}/status"):
        key, _, value = line.partition(":")
        fields[key] = value.split()
    return int(fields["VmRSS"][0]) / 1024, int(fields["Threads"][0])

def switches(pid):
    total = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            text = open(f"/proc/{pid}/task/{task}/status").read()
        except OSError:
            continue
        total[task] = sum(int(line.split()[1]) for line in text.splitlines() if "ctxt_switches" in line)
    return total

def start_daemon(name, bundles):
    socket_path = f"{run}/{name}.sock"
    daemon = subprocess.Popen(
        [f"{bin_dir}/backgrounderd", "--socket", socket_path, "--state-dir", f"{run}/state-{name}",
         "--bundles", bundles, "--pulse-server", f"unix:{run}/no-pulse", "--gpsd", "127.0.0.1:1",
         "--suspend-grace", "1", "--ignore-memory-pressure", "--log-level", "error",
         # No volume per app: a root daemon gives each app's data a loop-mounted volume, and
         # a container's /dev has a fixed number of loop devices (512 here), so a thousand
         # apps with volumes cannot all launch (docs/BENCHMARKS.md, Scale).
         "--app-data-quota", "0"],
        stdout=subprocess.DEVNULL, stderr=open(f"{run}/{name}.log", "w"), start_new_session=True)
    for _ in range(600):
        if os.path.exists(socket_path):
            break
        time.sleep(0.05)
    return daemon, dict(os.environ, BACKGROUNDER_SOCKET=socket_path)

def bgctl(env, *arguments):
    done = subprocess.run([f"{bin_dir}/bgctl", *arguments], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"bgctl {' '.join(arguments)}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout

def stop(daemon):
    daemon.terminate()
    try:
        daemon.wait(timeout=120)
    except subprocess.TimeoutExpired:
        daemon.kill()
        daemon.wait()

# The daemon with no app: what "per app" is measured above.
os.makedirs(f"{run}/none", mode=0o755)
daemon, env = start_daemon("none", f"{run}/none")
time.sleep(2)
base_rss, base_threads = status(daemon.pid)
stop(daemon)
print(f"no app: RSS {base_rss:.1f} MiB, {base_threads} threads")
print(f"{'apps':>5s}  {'open all s':>10s}  {'suspended s':>11s}  {'RSS MiB':>8s}  {'per app':>8s}  "
      f"{'threads':>7s}  {'per app':>7s}  {'ps ms':>6s}  {'idle switches':>13s}")
idle_seconds = float(os.environ.get("IDLE_SECONDS", "10"))


def measure(count, daemon, env):
    start = time.monotonic()
    for i in range(count):
        bgctl(env, "open", f"org.bench.scale{i}")
    bgctl(env, "home")
    opened = time.monotonic() - start
    suspended_at = None
    for _ in range(max(600, count * 2)):
        apps = json.loads(bgctl(env, "ps", "--json"))["apps"]
        if sum(1 for app in apps if app.get("state") == "suspended") == count:
            suspended_at = time.monotonic() - start
            break
        time.sleep(0.5)
    if suspended_at is None:
        states = {}
        for app in apps:
            states[app.get("state")] = states.get(app.get("state"), 0) + 1
        raise RuntimeError(f"not all suspended: {states}")
    time.sleep(2)
    rss, threads = status(daemon.pid)
    ps_times = []
    for _ in range(5):
        t = time.monotonic()
        bgctl(env, "ps", "--json")
        ps_times.append((time.monotonic() - t) * 1000)
    before = switches(daemon.pid)
    time.sleep(idle_seconds)
    after = switches(daemon.pid)
    idle = sum(after[t] - before[t] for t in after if t in before)
    ps_ms = statistics.median(ps_times)
    rss_per_app = (rss - base_rss) / count
    threads_per_app = (threads - base_threads) / count
    print(f"{count:5d}  {opened:10.2f}  {suspended_at:11.2f}  {rss:8.1f}  {rss_per_app:8.3f}  "
          f"{threads:7d}  {threads_per_app:7.2f}  {ps_ms:6.1f}  {idle:13d}")
    for name, unit, value in (("open, per app", "ms", opened * 1000 / count),
                                 ("daemon RSS per app", "MiB", rss_per_app),
                                 ("daemon threads per app", "threads", threads_per_app),
                                 ("bgctl ps", "ms", ps_ms),
                                 (f"idle context switches per {idle_seconds:.0f} s", "switches", idle)):
        benchrecord.record("scale", f"{name}, {count} apps", unit, None, None, value,
                           goal=0 if "idle" in name else None)

for count in counts:
    bundles = f"{run}/bundles-{count}"
    make_bundles(bundles, count)
    daemon, env = start_daemon(f"n{count}", bundles)
    try:
        measure(count, daemon, env)
    except RuntimeError as error:
        sys.exit(f"bench-scale: {count} apps: {error}")
    finally:
        stop(daemon)
PY
