#!/usr/bin/env bash
# Audio benchmarks (release build), beside pacat in the same run, against a private headless
# PulseAudio with a null sink:
#   1. CPU time per minute of 44.1 kHz stereo s16 playback: backgrounderd moving BackgroundPlayer's
#      ring into PulseAudio, beside pacat playing the same samples as a raw file (--raw, so pacat
#      does no decoding); one after the other, not at the same time, and nothing asks the daemon
#      anything meanwhile. The app's CPU (it decodes the WAV and writes the ring), PulseAudio's,
#      the daemon's while idle, and wakeups are printed too.
#   2. Added latency from the app's write to the sink: ringSeconds + serverLatency from
#      `bgctl audio --json`, sampled every 200 ms over 15 s of playback, with the buffer
#      attributes granted; beside what `pacat -v` reports (buffer metrics, latency) for the same 15 s.
#
#   The player is frozen between refills of its ring (docs/AUDIO.md); the share of the run it
#   spent frozen is printed and recorded. --no-refill-freeze runs the same with the player kept
#   running, for comparison (its measures are recorded with "(always running)").
#
#   scripts/bench-audio.sh                        one round of 60 s a side (about 3 minutes)
#   scripts/bench-audio.sh --rounds 2 --seconds 30
#   scripts/bench-audio.sh --no-refill-freeze
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_OF_AUDIO=60
ROUNDS=1
REFILL_FREEZE=1
while [ $# -gt 0 ]; do
    case $1 in
    --seconds) SECONDS_OF_AUDIO=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --no-refill-freeze) REFILL_FREEZE=0; shift ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-audio: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done
for product in backgrounderd bgctl bgbundle BackgroundPlayer; do swift build -c release --product "$product" >/dev/null; done
BIN=$(swift build -c release --show-bin-path)
RUN=$(mktemp -d /tmp/bgaudio-XXXXXX)
# Apps run under uids of their own when the daemon is root: they pass through this directory.
chmod 711 "$RUN"
DAEMON=""
PULSE=""
GPSD=""
cleanup() {
    # The daemon ends its apps on SIGTERM; then PulseAudio. By process id only.
    for pid in $DAEMON $PULSE $GPSD; do
        kill -TERM "$pid" 2>/dev/null || continue
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    if [ -s "$RUN/app.pid" ]; then kill -KILL "$(cat "$RUN/app.pid")" 2>/dev/null || true; fi
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
start_private_pulse "$RUN" || { echo "bench-audio: PulseAudio did not start; see $RUN/pulse.log" >&2; cat "$RUN/pulse.log" >&2; exit 1; }
PULSE=$PULSE_PID
export PULSE_SERVER="unix:$RUN/pulse/native" PULSE_RUNTIME_PATH="$RUN/pulse" HOME="$RUN/pulse-home"

"$BIN/bgbundle" --name BackgroundPlayer --executable "$BIN/BackgroundPlayer" \
    --info-plist Samples/BackgroundPlayer/Info.plist --output "$RUN/bundles" >/dev/null
# A gpsd with no device, as in bench-lifecycle.sh, so the daemon has no reconnect timer running.
GPSD_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid gpsd -N -n -S "$GPSD_PORT" -F "$RUN/gpsd.sock" >"$RUN/gpsd.log" 2>&1 </dev/null &
GPSD=$!
setsid "$BIN/backgrounderd" --socket "$RUN/d.sock" --state-dir "$RUN/state" --bundles "$RUN/bundles" \
    --pulse-server "unix:$RUN/pulse/native" --gpsd "127.0.0.1:$GPSD_PORT" --ignore-memory-pressure --log-level warning \
    $([ "$REFILL_FREEZE" = 1 ] || echo --no-refill-freeze) >"$RUN/daemon.log" 2>&1 </dev/null &
DAEMON=$!

python3 - "$BIN" "$RUN" "$DAEMON" "$PULSE" "$SECONDS_OF_AUDIO" "$ROUNDS" "$REFILL_FREEZE" <<'PY'
import array, ctypes, json, math, os, re, resource, select, subprocess, sys, threading, time, wave
sys.path.insert(0, "scripts/lib")
import applog

bin_dir, run, daemon_pid, pulse_pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
seconds, rounds, refill_freeze = float(sys.argv[5]), int(sys.argv[6]), sys.argv[7] == "1"
# The measures of a run with the player kept running are recorded under names of their own.
variant = "" if refill_freeze else " (always running)"
socket_path = f"{run}/d.sock"
env = dict(os.environ, BACKGROUNDER_SOCKET=socket_path)
app_id = "org.backgrounder.samples.backgroundplayer"
RATE, CHANNELS, FRAME = 44100, 2, 4
CLK = os.sysconf("SC_CLK_TCK")
INTERVAL = 0.2

def bgctl(*args):
    result = subprocess.run([f"{bin_dir}/bgctl", *args, "--socket", socket_path, "--json"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        return None
    # {"version": 1, KEY: VALUE} (docs/JSON.md): the value.
    return next(value for key, value in json.loads(result.stdout).items() if key != "version")

for _ in range(150):
    status = bgctl("status")
    # gpsd is watched only while an app needs fixes; none does here.
    if status and status.get("pulseAudio", {}).get("state") == "connected" \
            and status.get("gpsd", {}).get("detail") == "not watched: no app needs fixes":
        break
    time.sleep(0.1)
else:
    sys.exit(f"backgrounderd did not connect to PulseAudio and settle on gpsd: {status}; see {run}/daemon.log")
assert status["pid"] == daemon_pid, (status["pid"], daemon_pid)

# The signal: a I-vi-IV-V progression of three-note chords, 2 s each, the right channel
# detuned by 0.2 % so the channels differ, with short fades so chord changes do not click.
chords = [(261.63, 329.63, 392.00), (220.00, 261.63, 329.63), (174.61, 220.00, 261.63), (196.00, 246.94, 293.66)]
blocks = []
n = 2 * RATE
for chord in chords:
    samples = array.array("h")
    for i in range(n):
        t = i / RATE
        envelope = 0.3 * min(1.0, i / 2000, (n - i) / 2000) / len(chord)
        left = sum(math.sin(2 * math.pi * f * t) for f in chord) * envelope
        right = sum(math.sin(2 * math.pi * f * 1.002 * t) for f in chord) * envelope
        samples.append(int(left * 32767))
        samples.append(int(right * 32767))
    blocks.append(samples.tobytes())
total_frames = int(seconds * RATE)
pcm = b"".join(blocks[i % 4] for i in range(math.ceil(total_frames / n)))[: total_frames * FRAME]
def write_wav(path, data):
    with wave.open(path, "wb") as w:
        w.setnchannels(CHANNELS); w.setsampwidth(2); w.setframerate(RATE); w.writeframes(data)
# The same samples for both sides: a WAV for the app (libsndfile reads it), raw for pacat.
# The player is sandboxed: it reads what a person hands it from its own data directory.
media = f"{run}/state/data/{app_id}"
os.makedirs(media, exist_ok=True)
write_wav(f"{media}/signal.wav", pcm)
open(f"{run}/signal.raw", "wb").write(pcm)
# The latency runs (both sides) play the first 15 s.
short_seconds = min(seconds, 15.0)
short = pcm[: int(short_seconds * RATE) * FRAME]
write_wav(f"{media}/short.wav", short)
open(f"{run}/short.raw", "wb").write(short)
audio_minutes = seconds / 60
app_log = f"{run}/state/logs/{app_id}.log"

def cpu(pid):
    """CPU time the process (all its threads, living and exited) used so far in ms, two ways:
    utime+stime from /proc/PID/stat (fields 14 and 15, whole clock ticks), and its process CPU
    clock (clock_getcpuclockid(PID), nanoseconds), which the ratios use."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        clock = time.clock_gettime_ns(((~pid) << 3) | 2)    # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / CLK, clock / 1e6

def threads(pid):
    """Per thread: its name, voluntary context switches, and run time in ms (schedstat)."""
    found = {}
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            name = open(f"/proc/{pid}/task/{task}/comm").read().strip()
            wakes = next(int(line.split()[1]) for line in open(f"/proc/{pid}/task/{task}/status")
                         if line.startswith("voluntary_ctxt_switches"))
            run_ms = int(open(f"/proc/{pid}/task/{task}/schedstat").read().split()[0]) / 1e6
        except (OSError, StopIteration):
            continue
        found[task] = (name, wakes, run_ms)
    return found

def thread_use(after, before):
    """Per thread, busiest first: name (cut to 15 characters by the kernel), wakeups, ms."""
    use = []
    for task, (name, wakes, run_ms) in after.items():
        _, wakes0, run0 = before.get(task, (name, 0, 0.0))
        use.append((name, wakes - wakes0, run_ms - run0))
    return sorted(use, key=lambda item: -item[2])

STEADY_MARGIN = 5.0

def steady_rate(samples):
    """ms of CPU per second between two (cpu(pid), monotonic) samples, or None."""
    if len(samples) < 2 or samples[0][0] is None or samples[1][0] is None:
        return None
    (c0, w0), (c1, w1) = samples
    return (c1[1] - c0[1]) / (w1 - w0)  # the process CPU clock

def used(after, before):
    return tuple(a - b for a, b in zip(after, before))

def switches(pid):
    """Voluntary context switches (sleeps, so wakeups) per living thread."""
    return {task: wakes for task, (_, wakes, _) in threads(pid).items()}

def woken(after, before):
    """Wakeups between two `switches` readings; a thread that exited in between is not counted."""
    return sum(wakes - before.get(task, 0) for task, wakes in after.items())

def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

def app_info():
    for app in bgctl("ps") or []:
        if app["id"] == app_id:
            return app
    return {}

def app_pid():
    return app_info().get("pid")

def frozen_for_refill():
    """Seconds the player spent frozen between refills so far, and how many freezes."""
    app = app_info()
    return app.get("refillFrozenSeconds") or 0.0, app.get("refillFreezes") or 0

def stops():
    """How many times the player has said it stopped (after draining what it wrote)."""
    try:
        return sum(1 for line in applog.lines(app_log) if line.strip() == "stopped")
    except OSError:
        return 0

def play(path):
    subprocess.run([f"{bin_dir}/BackgroundPlayer", "play", path], env=env, check=True, stdout=subprocess.DEVNULL)

results = []
for round_number in range(1, rounds + 1):
    # --- backgrounderd + BackgroundPlayer. No status queries while measuring: the end is the
    # player's "stopped" in its log, which it prints once the daemon has drained the stream.
    pid = app_pid()
    app_before, app_s0 = (cpu(pid), switches(pid)) if pid else ((0, 0), {})
    streams = (bgctl("audio", app_id) or {}).get("streams", [])
    underruns_before = streams[0]["underruns"] if streams else 0
    stopped = stops()
    refill0 = frozen_for_refill()
    t_0 = threads(daemon_pid)
    d0, p0, s0, w0 = cpu(daemon_pid), cpu(pulse_pid), switches(daemon_pid), time.monotonic()
    play(f"{media}/signal.wav")
    deadline = w0 + seconds * 2 + 30
    # The steady state: from STEADY_MARGIN s after play to STEADY_MARGIN s before the end of
    # the audio, with no launch, connection, stream set-up or drain in it.
    steady = []
    while stops() == stopped:
        if time.monotonic() > deadline:
            sys.exit(f"the player did not stop within {seconds * 2 + 30:.0f} s; see {app_log}")
        if len(steady) < 2 and time.monotonic() >= w0 + (STEADY_MARGIN if not steady else seconds - STEADY_MARGIN):
            steady.append((cpu(daemon_pid), time.monotonic()))
        time.sleep(0.05)
    d1, p1, s1, w1 = cpu(daemon_pid), cpu(pulse_pid), switches(daemon_pid), time.monotonic()
    t_1 = threads(daemon_pid)
    refill1 = frozen_for_refill()
    pid = app_pid()
    open(f"{run}/app.pid", "w").write(str(pid))
    app_after, app_s1 = cpu(pid), switches(pid)
    stream = bgctl("audio", app_id)["streams"][0]
    if stream["state"] == "playing":
        sys.exit("the player said stopped, but its stream is still playing")
    time.sleep(1)

    # --- pacat, the same samples as a raw file (no decoding), server defaults
    idle0, pp0, is0 = cpu(daemon_pid), cpu(pulse_pid), switches(daemon_pid)
    usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    pacat = subprocess.Popen(["pacat", "--raw", "--format=s16le", "--rate=44100", "--channels=2", f"{run}/signal.raw"])
    pacat_steady = []
    while pacat.poll() is None:
        if len(pacat_steady) < 2 and time.monotonic() >= t0 + (STEADY_MARGIN if not pacat_steady else seconds - STEADY_MARGIN):
            pacat_steady.append((cpu(pacat.pid), time.monotonic()))
        time.sleep(0.05)
    if pacat.returncode != 0:
        sys.exit(f"pacat failed ({pacat.returncode})")
    t1 = time.monotonic()
    usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    idle1, pp1, is1 = cpu(daemon_pid), cpu(pulse_pid), switches(daemon_pid)
    results.append(dict(
        daemon=used(d1, d0), app=used(app_after, app_before), pulse=used(p1, p0), wall=w1 - w0,
        daemon_switches=woken(s1, s0), app_switches=woken(app_s1, app_s0), underruns=stream["underruns"] - underruns_before,
        pacat=((usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)) * 1000,
        pacat_pulse=used(pp1, pp0), pacat_wall=t1 - t0, pacat_switches=usage1.ru_nvcsw - usage0.ru_nvcsw,
        daemon_idle=used(idle1, idle0), daemon_idle_switches=woken(is1, is0), daemon_threads=thread_use(t_1, t_0),
        frozen=refill1[0] - refill0[0], freezes=refill1[1] - refill0[1],
        # ms of CPU per second in the steady state (process CPU clocks), or None.
        steady=(steady_rate(steady), steady_rate(pacat_steady))))
    time.sleep(1)

def frozen_timeline(pid, until, points):
    """The player's cgroup going frozen and thawed, from inotify on its cgroup.events (the
    kernel notifies each change), until `until` (monotonic): (monotonic time, 1 or 0) per
    change. Nothing is polled, so watching adds one wakeup per change here and none to the
    player or the daemon."""
    try:
        relative = next(line.split("::", 1)[1].strip() for line in open(f"/proc/{pid}/cgroup") if line.startswith("0::"))
        # The cgroup2 mount: /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid system.
        mount = next(line.split()[4] for line in open("/proc/self/mountinfo")
                     if line.split(" - ", 1)[1].startswith("cgroup2 "))
    except (OSError, StopIteration, IndexError):
        return
    events = f"{mount}{relative}/cgroup.events"
    def frozen():
        try:
            return int(any(line.split() == ["frozen", "1"] for line in open(events)))
        except OSError:
            return 0
    libc = ctypes.CDLL(None, use_errno=True)
    descriptor = libc.inotify_init1(os.O_CLOEXEC)
    if descriptor < 0 or libc.inotify_add_watch(descriptor, events.encode(), 0x2) < 0:  # IN_MODIFY
        return
    try:
        points.append((time.monotonic(), frozen()))
        while (left := until - time.monotonic()) > 0:
            if select.select([descriptor], [], [], left)[0]:
                os.read(descriptor, 4096)
                state = frozen()
                if state != points[-1][1]:
                    points.append((time.monotonic(), state))
    finally:
        os.close(descriptor)

# --- Latency, daemon side: the first 15 s, `bgctl audio --json` every 200 ms; the player's
# frozen/running timeline meanwhile (cgroup freezer only).
ring, server, added, underrun_at = [], [], [], []
attributes, starved = None, 0
short_bytes = len(short)
stopped = stops()
stream = bgctl("audio", app_id)["streams"][0]
before, bytes_before = stream["underruns"], stream["bytes"]
t0 = time.monotonic()
timeline = []
watcher = threading.Thread(target=frozen_timeline, args=(app_pid(), t0 + short_seconds, timeline), daemon=True)
watcher.start()
play(f"{media}/short.wav")
next_sample = t0
while stops() == stopped and time.monotonic() < t0 + short_seconds * 2 + 30:
    next_sample += INTERVAL
    streams = (bgctl("audio", app_id) or {}).get("streams", [])
    if streams:
        stream = streams[0]
        if stream["underruns"] > before:
            underrun_at.append(time.monotonic() - t0)
            before = stream["underruns"]
        if stream["state"] == "starved":
            starved += 1
        if stream["state"] == "playing":
            attributes = stream.get("attributes") or attributes
            # Only while the app still writes, not the final drain of the ring and the server
            # (the same stream plays on from the CPU runs, so `bytes` counts from before).
            written = stream["bytes"] - bytes_before + stream["ringSeconds"] * RATE * FRAME
            if stream.get("serverLatency") is not None and written < short_bytes - 0.1 * RATE * FRAME:
                ring.append(stream["ringSeconds"])
                server.append(stream["serverLatency"])
                added.append(stream["ringSeconds"] + stream["serverLatency"])
    time.sleep(max(0.0, next_sample - time.monotonic()))

# --- Latency, pacat side: pacat -v on the same 15 s. -v also asks the server for timing every
# 50 ms and prints it, which is why the CPU run above is without it.
verbose = subprocess.run(["pacat", "-v", "--raw", "--format=s16le", "--rate=44100", "--channels=2", f"{run}/short.raw"],
                         capture_output=True, text=True)
metrics = re.search(r"Buffer metrics: (.*)", verbose.stderr)
pacat_latency = []
for line in verbose.stderr.replace("\r", "\n").splitlines():
    match = re.search(r"Time: ([\d.]+) sec; Latency: (-?\d+) usec", line)
    if match:
        position, latency = float(match.group(1)), int(match.group(2)) / 1e6
        if position + latency < short_seconds - 0.1:      # while pacat still writes
            pacat_latency.append(latency)
watcher.join()
per_min = lambda value: value / audio_minutes
PRECISE, STAT = 1, 0
print(f"== 1. CPU per minute of 44.1 kHz stereo s16 playback ({seconds:.0f} s of audio a side, one after the other)")
print(f"  ms of CPU (user+system) per minute of audio; daemon, app and PulseAudio from their process CPU clocks, pacat from getrusage")
print(f"  {'round':5s}  {'daemon':>7s}  {'app':>7s}  {'daemon+app':>10s}  {'pacat':>7s}  {'daemon/pacat':>12s}"
      f"  {'(daemon+app)/pacat':>18s}  {'PulseAudio: daemon run / pacat run':>34s}")
for i, r in enumerate(results, 1):
    d, a, p = r["daemon"][PRECISE], r["app"][PRECISE], r["pacat"]
    print(f"  {i:<5d}  {per_min(d):7.1f}  {per_min(a):7.1f}  {per_min(d + a):10.1f}  {per_min(p):7.1f}"
          f"  {d / p:11.2f}x  {(d + a) / p:17.2f}x  {per_min(r['pulse'][PRECISE]):26.1f} / {per_min(r['pacat_pulse'][PRECISE]):5.1f}")
def total(key, how=PRECISE):
    return sum(r[key][how] if how is not None else r[key] for r in results)
pacat_total = total("pacat", None)
daemon_total, app_total = total("daemon"), total("app")
print(f"  all rounds: daemon/pacat {daemon_total / pacat_total:.2f}x (goal at most 1.5x: "
      f"{'met' if daemon_total <= 1.5 * pacat_total else 'missed'}), (daemon+app)/pacat {(daemon_total + app_total) / pacat_total:.2f}x")
print(f"  the same from /proc/PID/stat utime+stime (whole {1000 / CLK:.0f} ms ticks): daemon {per_min(total('daemon', STAT) / rounds):.0f}, "
      f"app {per_min(total('app', STAT) / rounds):.0f} ms per minute on average; daemon/pacat {total('daemon', STAT) / pacat_total:.2f}x")
for i, r in enumerate(results, 1):
    print(f"  round {i}: daemon {r['daemon'][PRECISE]:.1f} ms, app {r['app'][PRECISE]:.1f} ms, PulseAudio {r['pulse'][PRECISE]:.1f} ms "
          f"over {r['wall']:.1f} s (from `BackgroundPlayer play`{', which launched the app,' if i == 1 else ''} to its "
          f"\"stopped\" after the drain), underruns {r['underruns']}")
    print(f"           pacat {r['pacat']:.1f} ms, PulseAudio {r['pacat_pulse'][PRECISE]:.1f} ms over {r['pacat_wall']:.1f} s; "
          f"the daemon meanwhile, idle: {r['daemon_idle'][PRECISE]:.1f} ms, {r['daemon_idle_switches'] / r['pacat_wall']:.1f} wakeups/s")
    idle_rate = r["daemon_idle"][PRECISE] / r["pacat_wall"]
    above = r["daemon"][PRECISE] - idle_rate * r["wall"]
    print(f"           the daemon above that idle rate: {per_min(above):.1f} ms per minute, {above / r['pacat']:.2f}x pacat")
    print(f"           voluntary context switches per second of audio (wakeups): daemon {r['daemon_switches'] / seconds:.1f} "
          f"(all threads living at the end), app {r['app_switches'] / seconds:.1f}, pacat {r['pacat_switches'] / seconds:.1f}")
    if None not in r["steady"]:
        print(f"           steady state (from {STEADY_MARGIN:.0f} s after the start to {STEADY_MARGIN:.0f} s before the end): "
              f"daemon {r['steady'][0] * 60:.1f}, pacat {r['steady'][1] * 60:.1f} ms per minute, {r['steady'][0] / r['steady'][1]:.2f}x")
    print(f"           the player frozen between refills: {r['frozen']:.1f} s of {r['wall']:.1f} s "
          f"({100 * r['frozen'] / r['wall']:.0f}%), {r['freezes']} freezes"
          + ("" if refill_freeze else " (--no-refill-freeze: kept running)"))
    print("           the daemon's busiest threads while playing (ms, wakeups): " + "; ".join(
        f"{name} {run_ms:.1f}, {wakes}" for name, wakes, run_ms in r["daemon_threads"][:6] if wakes or run_ms >= 0.05))

print()
print(f"== 2. Added latency from the app's write to the sink: ringSeconds + serverLatency, {short_seconds:.0f} s played, "
      f"sampled every {INTERVAL * 1000:.0f} ms ({len(added)} samples while the app still wrote; starved {starved}; "
      f"underruns {len(underrun_at)}{' at ' + ', '.join(f'{t:.1f} s' for t in underrun_at) if underrun_at else ''})")
for name, values in (("ring", ring), ("server", server), ("ring + server", added)):
    print(f"  {name:14s} p50 {percentile(values, 50) * 1000:6.0f} ms   p99 {percentile(values, 99) * 1000:6.0f} ms"
          f"   (min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f} ms)")
per_ms = RATE * FRAME / 1000
def show(values):
    return ", ".join(f"{key}={value}" + ("" if value == 0xFFFFFFFF else f" ({value / per_ms:.0f} ms)")
                     for key, value in values.items())
if attributes:
    print("  granted to the daemon's stream: " + show({key: attributes[key] for key in
                                                     ("maxlength", "tlength", "prebuf", "minreq", "fragsize")}))
if metrics:
    print("  pacat -v (server defaults):     " + show({key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", metrics.group(1))}))
else:
    print(f"  pacat -v printed no buffer metrics: {verbose.stderr[-500:]!r}")
sys.path.insert(0, "scripts/lib")
import benchrecord
benchrecord.record("audio", "CPU per minute of playback" + variant, "ms", "pacat", per_min(pacat_total / rounds),
                   per_min(daemon_total / rounds), goal=1.2)
steady = [r["steady"] for r in results if None not in r["steady"]]
if steady:
    steady_daemon = sum(d for d, _ in steady) / len(steady) * 60
    steady_pacat = sum(p for _, p in steady) / len(steady) * 60
    print(f"  steady state, all rounds: daemon {steady_daemon:.1f}, pacat {steady_pacat:.1f} ms per minute of playback, "
          f"{steady_daemon / steady_pacat:.2f}x (the whole run above also holds the app's launch and the stream's set-up and drain)")
    benchrecord.record("audio", "CPU per minute of playback, steady state" + variant, "ms", "pacat", steady_pacat,
                       steady_daemon, goal=1.2)
benchrecord.record("audio", "CPU per minute, daemon + app" + variant, "ms", "pacat", per_min(pacat_total / rounds),
                   per_min((daemon_total + app_total) / rounds))
benchrecord.record("audio", "daemon wakeups per second of audio" + variant, "/s", None, None,
                   sum(r["daemon_switches"] for r in results) / seconds / rounds, goal=0)
benchrecord.record("audio", "app wakeups per second of audio" + variant, "/s", None, None,
                   sum(r["app_switches"] for r in results) / seconds / rounds)
if refill_freeze:
    benchrecord.record("audio", "player frozen between refills", "%", None, None,
                       100 * sum(r["frozen"] for r in results) / sum(r["wall"] for r in results), goal=90,
                       higher_is_better=True)
if pacat_latency:
    benchrecord.record("audio", "added latency p50" + variant, "ms", "pacat -v", percentile(pacat_latency, 50) * 1000,
                       percentile(added, 50) * 1000, goal=1)
    suffix = "" if refill_freeze else "-running"
    benchrecord.samples([value * 1000 for value in added], "audio-latency-backgrounderd" + suffix)
    benchrecord.samples([value * 1000 for value in pacat_latency], "audio-latency-pacat" + suffix)
if len(timeline) > 1:
    benchrecord.timeline([(at - t0, state) for at, state in timeline] + [(short_seconds, timeline[-1][1])],
                         "audio-frozen" + ("" if refill_freeze else "-running"))
    frozen_share = sum((timeline[i + 1][0] if i + 1 < len(timeline) else t0 + short_seconds) - at
                       for i, (at, state) in enumerate(timeline) if state) / (t0 + short_seconds - timeline[0][0])
    print(f"  the player's cgroup while the {short_seconds:.0f} s played: {len(timeline) - 1} changes, frozen "
          f"{100 * frozen_share:.0f}% of the time (inotify on cgroup.events)")
if pacat_latency:
    print(f"  pacat -v latency, the same {short_seconds:.0f} s ({len(pacat_latency)} of its lines while it still wrote): "
          f"p50 {percentile(pacat_latency, 50) * 1000:.0f} ms   p99 {percentile(pacat_latency, 99) * 1000:.0f} ms"
          f"   (min {min(pacat_latency) * 1000:.0f}, max {max(pacat_latency) * 1000:.0f} ms)")
PY
