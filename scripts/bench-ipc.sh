#!/usr/bin/env bash
# IPC round trip over the daemon's socket beside a plain Unix-socket echo, in one run, twice:
# where the scheduler puts the processes, then with the daemon, the client and the echo pinned
# to one CPU. Free, a round trip's cost depends on whether the two ends share a CPU (a wake-up
# on an idle other CPU costs tens of microseconds in this VM, and the echo and its client tend
# to share one while the daemon's event loop does not); pinned, what is left is the software's.
#   scripts/bench-ipc.sh [--count N]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product backgrounderd
swift build -c release --product bgbench
BIN=$(swift build -c release --show-bin-path)
RUN=$(mktemp -d /tmp/bgbench-XXXXXX)
# Apps run under uids of their own when the daemon is root: they pass through this directory.
chmod 711 "$RUN"
trap 'kill $DAEMON 2>/dev/null; wait 2>/dev/null; rm -rf "$RUN"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
"$BIN/backgrounderd" --socket "$RUN/d.sock" --state-dir "$RUN/state" --bundles "$RUN/none" \
    --pulse-server "unix:$RUN/no-pulse" --gpsd 127.0.0.1:1 --log-level error &
DAEMON=$!
for _ in $(seq 1 100); do [ -S "$RUN/d.sock" ] && break; sleep 0.1; done
"$BIN/bgbench" ipc --socket "$RUN/d.sock" --daemon-pid "$DAEMON" "$@"
echo
echo "pinned to CPU 0:"
taskset -a -p -c 0 "$DAEMON" >/dev/null
taskset -c 0 "$BIN/bgbench" ipc --socket "$RUN/d.sock" --daemon-pid "$DAEMON" --placement "one CPU" "$@"
