#!/usr/bin/env bash
# Daemon restart with 10 apps kept (issue 14), beside a cold start of the same 10 apps, against
# a private headless PulseAudio (null sink) and gpsfake feeding a walk:
#   3 TestApps playing a 440 Hz tone in the background ("tone-duck": a session that mixes, so all
#   three play at once, each ducking the others; plain "tone" interrupts the others), 3 recording location in the background
#   ("locate", gpsfake replays Tests/Fixtures/gps/walk-bled.nmea), 4 idle ones suspended.
# Restart: the daemon is SIGKILLed (kill) or stopped with SIGTERM under --live-restore
# (live-restore), and a new one is started at once on the same state directory. Measured from
# the new daemon's exec:
#   adopted   all 10 in PS with their old pids (the daemon adopts before it answers anyone,
#             so this is its time to the first answer)
#   checked   the 6 running apps checked in again (state no longer `inactive`), the 4 still suspended
#   audio     the 3 tone streams `playing` again (AUDIO)
#   settled   all of that, and each locate app heard a fix again (a new `fix` line in its log)
#   gap       the longest silence `parec` heard on the null sink's monitor around the restart
#             (10 ms windows, RMS below 1% of full scale; the 3 tones are mixed, so this is the
#             time nothing played)
# Cold: a fresh daemon on a state directory that has the location grants but no apps; the same
# 10 apps opened over the control socket (idle, locate, tone) and sent home, measured from the
# daemon's exec to the same points (launched = all 10 have a pid; checked = none `inactive`; settled
# also needs the 4 idle ones suspended, which takes --suspend-grace after they were sent to the
# background). Timing is printed, never asserted; the median over the rounds is the figure.
#
#   scripts/bench-restart.sh                      5 rounds of each mode, release build
#   scripts/bench-restart.sh --rounds 3 --debug   the debug build (swift build --build-tests)
#   scripts/bench-restart.sh --modes kill,cold
#   BENCH_VERBOSE=1 (silences and the level every 100 ms around each restart), BENCH_KEEP=1 (keep the run directory)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=5
CONFIG=release
MODES=kill,live-restore,cold
GRACE=1
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) ROUNDS=$2; shift 2 ;;
    --debug) CONFIG=debug; shift ;;
    --modes) MODES=$2; shift 2 ;;
    --suspend-grace) GRACE=$2; shift 2 ;;
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-restart: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done
if [ "$CONFIG" = release ]; then
    for product in backgrounderd bgctl bgbundle TestApp; do swift build -c release --product "$product" >/dev/null; done
fi
BIN=$(swift build -c "$CONFIG" --show-bin-path)
for product in backgrounderd bgctl bgbundle TestApp; do
    [ -x "$BIN/$product" ] || { echo "bench-restart: no $BIN/$product; build it first" >&2; exit 1; }
done
RUN=$(mktemp -d /tmp/bgrestart-XXXXXX)
# Apps run under uids of their own when the daemon is root: they pass through this directory.
chmod 711 "$RUN"
PULSE=""
GPSFAKE=""
cleanup() {
    # The Python part ends its daemons and apps by pid; then gpsfake and PulseAudio.
    for pid in $GPSFAKE $PULSE; do
        kill -TERM "$pid" 2>/dev/null || continue
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    if [ -n "${BENCH_KEEP:-}" ]; then echo "bench-restart: kept $RUN" >&2; else rm -rf "$RUN"; fi
}
trap cleanup EXIT
# INT (Ctrl-C) or TERM ends the script through its EXIT trap, once the step running has ended
# (bash runs no trap on a signal's default action): a benchmark stopped by hand leaves no
# daemon, PulseAudio or mount behind.
trap 'exit 143' TERM
trap 'exit 130' INT

# shellcheck source=scripts/private-pulse.sh
. "$(dirname "$0")/private-pulse.sh"
start_private_pulse "$RUN" || { echo "bench-restart: PulseAudio did not start" >&2; cat "$RUN/pulse.log" >&2; exit 1; }
PULSE=$PULSE_PID
export PULSE_SERVER="unix:$RUN/pulse/native" PULSE_RUNTIME_PATH="$RUN/pulse" HOME="$RUN/pulse-home"

GPSD_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# gpsfake starts a gpsd on that port and replays the walk in a loop, a sentence every 0.1 s,
# once the first client (the first daemon) connects.
setsid gpsfake -q -P "$GPSD_PORT" -c 0.1 Tests/Fixtures/gps/walk-bled.nmea >"$RUN/gpsfake.log" 2>&1 </dev/null &
GPSFAKE=$!

make_bundle() { # NAME BEHAVIOR MODE
    local modes=""
    [ -n "$3" ] && modes="<key>UIBackgroundModes</key><array><string>$3</string></array>"
    cat >"$RUN/$1.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict>
<key>CFBundleIdentifier</key><string>org.bench.${1,,}</string>
<key>CFBundleName</key><string>$1</string>
<key>CFBundleExecutable</key><string>TestApp</string>
<key>TestAppBehavior</key><string>$2</string>
$modes
<key>NSLocationAlwaysAndWhenInUseUsageDescription</key><string>Benchmarks.</string>
</dict></plist>
PLIST
    "$BIN/bgbundle" --name "$1" --executable "$BIN/TestApp" --info-plist "$RUN/$1.plist" --output "$RUN/bundles" >/dev/null
}
for i in 1 2 3; do make_bundle "Tone$i" tone-duck audio; done
for i in 1 2 3; do make_bundle "Locate$i" locate location; done
for i in 1 2 3 4; do make_bundle "Idle$i" idle ""; done

python3 - "$BIN" "$RUN" "$GPSD_PORT" "$ROUNDS" "$MODES" "$GRACE" "$CONFIG" <<'PY'
import array, json, math, os, signal, socket, statistics, subprocess, sys, threading, time
sys.path.insert(0, "scripts/lib")
import applog

bin_dir, run, gpsd_port, rounds, modes, grace, config = sys.argv[1:8]
rounds, modes = int(rounds), modes.split(",")
TONES = [f"org.bench.tone{i}" for i in (1, 2, 3)]
LOCATES = [f"org.bench.locate{i}" for i in (1, 2, 3)]
IDLES = [f"org.bench.idle{i}" for i in (1, 2, 3, 4)]
RUNNING = TONES + LOCATES
ALL = IDLES + LOCATES + TONES          # the order they are opened in
RATE, WINDOW = 44100, 441              # parec: s16le mono; 10 ms windows
SILENT_RMS = 327                       # 1% of full scale; each tone is 12000 peak
POLL = 0.005


def now():
    return time.monotonic()


class Control:
    """The control socket, spoken directly (one JSON line each way), so polling costs no bgctl exec."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.next_id = 0
        self.file.readline()            # the VERSION greeting
        self.request("HELLO", protocol=1, client="bench-restart")

    def request(self, cls, **fields):
        self.next_id += 1
        self.file.write((json.dumps(dict({"class": cls, "id": self.next_id}, **fields)) + "\n").encode())
        self.file.flush()
        while True:
            line = self.file.readline()
            if not line:
                raise ConnectionError("the daemon closed the connection")
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                if reply.get("class") == "ERROR":
                    raise RuntimeError(f"{cls}: {reply}")
                return reply

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def connect(path, deadline):
    while now() < deadline:
        try:
            return Control(path)
        except (OSError, ConnectionError, ValueError):
            time.sleep(POLL)
    raise SystemExit(f"no daemon answered on {path}")


class Daemon:
    def __init__(self, directory, live_restore=False):
        self.directory = directory
        self.socket = f"{directory}/d.sock"
        arguments = [f"{bin_dir}/backgrounderd", "--socket", self.socket, "--state-dir", f"{directory}/state",
                     "--bundles", f"{run}/bundles", "--gpsd", f"127.0.0.1:{gpsd_port}",
                     "--pulse-server", f"unix:{run}/pulse/native", "--ignore-memory-pressure",
                     "--suspend-grace", grace, "--log-level", "info"]
        if live_restore:
            arguments.append("--live-restore")
        log = open(f"{directory}/daemon.log", "ab")
        self.started = now()
        self.process = subprocess.Popen(arguments, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                        start_new_session=True)
        self.control = None

    def client(self, timeout=30):
        if self.control is None:
            self.control = connect(self.socket, now() + timeout)
        return self.control

    def apps(self):
        return {app["id"]: app for app in self.client().request("PS")["apps"]}

    def streams(self):
        return self.client().request("AUDIO").get("streams", [])

    def stop(self, sig=signal.SIGTERM, timeout=20):
        if self.control:
            self.control.close()
            self.control = None
        try:
            self.process.send_signal(sig)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def wait_for(what, predicate, timeout, poll=0.05):
    deadline = now() + timeout
    while now() < deadline:
        result = predicate()
        if result:
            return result
        time.sleep(poll)
    raise SystemExit(f"timed out waiting for {what}")


def fixes(directory, app):
    try:
        return sum(1 for line in applog.lines(f"{directory}/state/logs/{app}.log") if line.startswith("fix "))
    except OSError:
        return 0


def playing(streams):
    return {s["bundle"] for s in streams if s["state"] == "playing" and s["bundle"] in TONES}


def wait_connected(daemon):
    def connected():
        status = daemon.client().request("STATUS")
        # gpsd is watched only while an app needs fixes: connected, or settled on not watching.
        gpsd = status.get("gpsd", {})
        return status.get("pulseAudio", {}).get("state") == "connected" and \
            (gpsd.get("state") == "connected" or gpsd.get("detail") == "not watched: no app needs fixes")
    wait_for("the daemon to connect to PulseAudio and settle on gpsd", connected, 30)


def authorize(daemon):
    for app in LOCATES:
        subprocess.run([f"{bin_dir}/bgctl", "authorize", app, "location", "always", "--socket", daemon.socket],
                       check=True, capture_output=True)


def open_all(daemon):
    for app in ALL:
        daemon.client().request("OPEN", bundle=app)
    daemon.client().request("HOME")


def settled_states(apps):
    return all(apps.get(a, {}).get("state") == "background" for a in RUNNING) and \
        all(apps.get(a, {}).get("state") == "suspended" for a in IDLES)


class Capture:
    """parec on the null sink's monitor, read by a thread; sample i was heard at about
    first + i / RATE (first: when its first bytes arrived)."""

    def __init__(self):
        self.process = subprocess.Popen(["parec", "-d", "null.monitor", "--raw", "--format=s16le", f"--rate={RATE}",
                                         "--channels=1", "--latency-msec=10"], stdout=subprocess.PIPE)
        self.data = bytearray()
        self.first = None
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()
        wait_for("parec", lambda: self.first is not None, 10)

    def read(self):
        while True:
            chunk = self.process.stdout.read1(65536)
            if not chunk:
                return
            if self.first is None:
                self.first = now() - len(chunk) / 2 / RATE
            self.data += chunk

    def stop(self):
        self.process.terminate()
        self.process.wait()
        self.thread.join()
        samples = array.array("h")
        samples.frombytes(bytes(self.data[: len(self.data) // 2 * 2]))
        return samples

    def silences(self, samples):
        """(start, length) of each run of silent windows, in seconds of monotonic time."""
        runs, start = [], None
        count = len(samples) // WINDOW
        for w in range(count + 1):
            silent = w < count and math.sqrt(
                sum(x * x for x in samples[w * WINDOW:(w + 1) * WINDOW]) / WINDOW) < SILENT_RMS
            if silent and start is None:
                start = w
            elif not silent and start is not None:
                runs.append((self.first + start * WINDOW / RATE, (w - start) * WINDOW / RATE))
                start = None
        return runs


def end_left(pids):
    """Kills, by pid, any app a failed round left behind (SIGKILL works on a stopped one too)."""
    for pid in pids.values():
        try:
            if b"TestApp" in open(f"/proc/{pid}/cmdline", "rb").read():
                os.kill(pid, signal.SIGKILL)
        except (OSError, ProcessLookupError):
            pass


def cold_round(index):
    directory = f"{run}/cold{index}"
    os.makedirs(directory)
    os.chmod(directory, 0o711)        # the daemon refuses a socket directory others may list
    # The grants a person gave earlier are in the store; no app has run.
    first = Daemon(directory)
    wait_connected(first)
    authorize(first)
    first.stop()
    before = {app: fixes(directory, app) for app in LOCATES}
    daemon = Daemon(directory)
    t0 = daemon.started
    marks = {}
    try:
        daemon.client()
        marks["answer"] = now() - t0
        open_all(daemon)
        while "settled" not in marks:
            if now() - t0 > 60:
                raise SystemExit(f"cold start did not settle: {daemon.apps()}; see {directory}/daemon.log")
            apps = daemon.apps()
            t = now() - t0
            if "adopted" not in marks and all(apps.get(a, {}).get("pid") for a in ALL):
                marks["adopted"] = t
            if "checked" not in marks and all(apps.get(a, {}).get("state") in ("background", "suspended")
                                              for a in ALL):
                marks["checked"] = t
            if "audio" not in marks and playing(daemon.streams()) == set(TONES):
                marks["audio"] = now() - t0
            heard = all(fixes(directory, a) > before[a] for a in LOCATES)
            if "audio" in marks and heard and settled_states(apps):
                marks["settled"] = now() - t0
            time.sleep(POLL)
        marks["gap"] = None
    finally:
        daemon.stop()
    return marks


def restart_round(index, mode):
    directory = f"{run}/{mode}{index}"
    os.makedirs(directory)
    os.chmod(directory, 0o711)        # the daemon refuses a socket directory others may list
    first = Daemon(directory, live_restore=(mode == "live-restore"))
    second = None
    pids = {}
    try:
        wait_connected(first)
        authorize(first)
        open_all(first)
        def ready():
            apps = first.apps()
            return settled_states(apps) and playing(first.streams()) == set(TONES) and \
                all(fixes(directory, a) > 0 for a in LOCATES) and apps
        apps = wait_for("the 10 apps to settle under the first daemon", ready, 60)
        pids = {a: apps[a]["pid"] for a in ALL}
        capture = Capture()
        time.sleep(2)
        before = {app: fixes(directory, app) for app in LOCATES}
        killed = now()
        first.stop(signal.SIGKILL if mode == "kill" else signal.SIGTERM)
        exited = now()
        gone = [a for a, pid in pids.items() if not os.path.exists(f"/proc/{pid}")]
        if gone:
            raise SystemExit(f"{mode}: apps ended with the first daemon: {gone}")
        second = Daemon(directory)
        t0 = second.started
        marks = {"stop": exited - killed}
        second.client()
        marks["answer"] = now() - t0
        while "settled" not in marks:
            if now() - t0 > 60:
                raise SystemExit(f"{mode}: restart did not settle: {second.apps()}; see {directory}/daemon.log")
            apps = second.apps()
            t = now() - t0
            if "adopted" not in marks:
                adopted = [a for a in ALL if apps.get(a, {}).get("pid") == pids[a]]
                if len(adopted) == len(ALL):
                    marks["adopted"] = t
                elif any(apps.get(a, {}).get("pid") not in (None, pids[a]) for a in ALL):
                    raise SystemExit(f"{mode}: relaunched, not adopted: {apps}")
            if "checked" not in marks and all(apps.get(a, {}).get("state") == "background" for a in RUNNING) \
                    and all(apps.get(a, {}).get("state") == "suspended" for a in IDLES):
                marks["checked"] = t
            if "audio" not in marks and playing(second.streams()) == set(TONES):
                marks["audio"] = now() - t0
            heard = all(fixes(directory, a) > before[a] for a in LOCATES)
            if "audio" in marks and heard and settled_states(apps):
                marks["settled"] = now() - t0
            time.sleep(POLL)
        time.sleep(2)
        samples = capture.stop()
        around = [(start, length) for start, length in capture.silences(samples)
                  if start + length > killed - 0.5 and start < t0 + marks["settled"] + 0.5]
        marks["gap"] = max((length for _, length in around), default=0.0)
        if os.environ.get("BENCH_VERBOSE"):
            print(f"  silences from the kill (s): {[(round(a - killed, 3), round(l, 3)) for a, l in around]}")
            levels = []
            for k in range(int((killed - 1 - capture.first) * 10), int((t0 + marks['settled'] + 3 - capture.first) * 10)):
                chunk = samples[k * 4410:(k + 1) * 4410]
                levels.append(int(math.sqrt(sum(x * x for x in chunk) / max(1, len(chunk)))))
            print(f"  RMS per 100 ms from 1 s before the kill: {levels}")
        marks["silences"] = len(around)
        still = [a for a, pid in pids.items() if second.apps()[a]["pid"] != pid]
        if still:
            raise SystemExit(f"{mode}: not the same processes at the end: {still}")
        return marks
    finally:
        if second:
            second.stop()          # no --live-restore: SIGTERM ends the apps
        first.stop(signal.SIGKILL)
        end_left(pids)


results = {mode: [] for mode in modes}
for index in range(1, rounds + 1):
    for mode in modes:
        marks = cold_round(index) if mode == "cold" else restart_round(index, mode)
        results[mode].append(marks)
        shown = ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in marks.items() if isinstance(v, float))
        print(f"round {index} {mode:12s} {shown}", flush=True)

def median(mode, key):
    values = [m[key] for m in results[mode] if m.get(key) is not None]
    return statistics.median(values) if values else None

def ms(value):
    return "-" if value is None else f"{value * 1000:.0f}"

print()
print(f"Medians over {rounds} round(s), ms from the (new) daemon's exec; {config} build; --suspend-grace {grace}")
print(f"{'':14s} {'answers':>8s} {'adopted':>8s} {'checked':>8s} {'audio':>8s} {'settled':>8s} {'gap':>8s}")
for mode in modes:
    label = mode if mode != "cold" else "cold start"
    print(f"{label:14s} " + " ".join(f"{ms(median(mode, key)):>8s}"
                                     for key in ("answer", "adopted", "checked", "audio", "settled", "gap")))
if "cold" in modes:
    for mode in modes:
        if mode == "cold":
            continue
        print(f"ratio cold / {mode}: checked {median('cold', 'checked') / median(mode, 'checked'):.2f}x, "
              f"settled {median('cold', 'settled') / median(mode, 'settled'):.2f}x")
print("(adopted, cold: all 10 have a pid; gap: longest silence on the null sink's monitor around the restart)")
PY
