# Sourced by the scripts that need a PulseAudio of their own: start_private_pulse DIR starts
# a headless server with a null sink whose socket is DIR/pulse/native, sets PULSE_PID, and
# returns 1 when the socket does not appear (DIR/pulse.log says why).
start_private_pulse() {
    local run=$1
    mkdir -p -m 700 "$run/pulse" "$run/pulse-home"
    PULSE_RUNTIME_PATH="$run/pulse" HOME="$run/pulse-home" XDG_RUNTIME_DIR="$run/pulse" setsid pulseaudio -n \
        --daemonize=no --exit-idle-time=-1 --disallow-exit \
        --load="module-null-sink sink_name=null" --load=module-native-protocol-unix >"$run/pulse.log" 2>&1 </dev/null &
    PULSE_PID=$!
    for _ in $(seq 1 100); do
        [ -S "$run/pulse/native" ] && return 0
        sleep 0.1
    done
    return 1
}
