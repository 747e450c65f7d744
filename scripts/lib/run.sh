# Shared by scripts/demo.sh and scripts/soak.sh: starting and stopping the processes of a
# run, reading bgctl through --json, waiting for states and log lines, a private PulseAudio and
# a generated tune. The caller sets RUN, BIN, SOCKET and PIDS=() and defines fail MESSAGE.

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

# A free loopback port below the ephemeral range (32768 and up): an ephemeral port may be taken
# by anyone's outgoing connection first, and the daemon, reconnecting to a gpsd that starts
# later, could reach it as a TCP self-connection and hold it itself.
free_port() {
    python3 -c '
import random, socket
for _ in range(200):
    port = random.randrange(20000, 32768)
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
    print(port)
    break
else:
    raise SystemExit("free_port: no free port in 20000-32767")
'
}

wait_for() {
    local what=$1
    shift
    for _ in $(seq 1 300); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        sleep 0.1
    done
    fail "$what did not come up within 30 s"
}

# bgctl's JSON, read with Python: `json_query 'EXPRESSION' bgctl ARGS...` prints the
# expression evaluated on the reply (`j`), e.g. j["status"]["gpsd"]["state"].
json_query() {
    local expression=$1
    shift
    "$BIN/bgctl" "$@" --json --socket "$SOCKET" | python3 -c "import json, sys; j = json.load(sys.stdin); print($expression)"
}

# An app's state as `bgctl ps --json` gives it ("absent" if not listed).
app_state() {
    json_query "next((a['state'] for a in j['apps'] if a['id'] == '$1'), 'absent')" ps
}

# Waits until an app is in a state; a minute is a bound for a hang, not a wait for speed.
wait_state() {
    local id=$1 state=$2
    for _ in $(seq 1 600); do
        [ "$(app_state "$id")" = "$state" ] && return 0
        sleep 0.1
    done
    fail "$id did not become $state within 60 s (it is $(app_state "$id"))"
}

# Waits until a file has a line matching a pattern, at least COUNT times (default 1).
wait_line() {
    local file=$1 pattern=$2 count=${3:-1} seconds=${4:-60}
    for _ in $(seq 1 $((seconds * 10))); do
        [ "$(grep -cE -- "$pattern" "$file" 2>/dev/null || true)" -ge "$count" ] && return 0
        sleep 0.1
    done
    fail "$file never had $count line(s) matching /$pattern/ within $seconds s"
}

# An app's log (STATE/logs/ID.log): each line the app wrote starts with the time the daemon
# read it, and the daemon marks where each run starts and ends (AppLogFormat): patterns for
# the start of an app's own line, and for a run's start marker.
# shellcheck disable=SC2034
APP_LINE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.+-]{17} '
# shellcheck disable=SC2034
RUN_STARTED='^-- [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.+-]{17} launched '

lines_matching() { grep -cE -- "$2" "$1" 2>/dev/null || true; }

# Uses the running PulseAudio if one answers, else starts a private headless one with a null
# sink. Sets PULSE_ARGS (for backgrounderd) and PRIVATE_PULSE (a prefix that runs a client
# against the private server; empty with a person's own server).
start_pulse() {
    PRIVATE_PULSE=()
    if pactl info >/dev/null 2>&1; then
        echo "using the running server"
        PULSE_ARGS=()
    else
        echo "none answers: starting a private headless one with a null sink"
        mkdir -p -m 700 "$RUN/pulse" "$RUN/pulse-home"
        start "$RUN/pulseaudio.log" env PULSE_RUNTIME_PATH="$RUN/pulse" HOME="$RUN/pulse-home" XDG_RUNTIME_DIR="$RUN/pulse" \
            pulseaudio -n --daemonize=no --exit-idle-time=-1 --disallow-exit \
            --load="module-null-sink sink_name=null" --load=module-native-protocol-unix
        wait_for "PulseAudio" test -S "$RUN/pulse/native"
        PULSE_ARGS=(--pulse-server "unix:$RUN/pulse/native")
        PRIVATE_PULSE=(env PULSE_SERVER="unix:$RUN/pulse/native" PULSE_RUNTIME_PATH="$RUN/pulse" HOME="$RUN/pulse-home")
    fi
}

# Writes a little tune to PATH: eight bars of plucked notes, 9.6 s, 44.1 kHz stereo WAV.
make_tune() {
    python3 - "$1" <<'PY'
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
}
