#!/usr/bin/env bash
# IPC round trip over the daemon's socket beside a plain Unix-socket echo, in one run.
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
"$BIN/backgrounderd" --socket "$RUN/d.sock" --state-dir "$RUN/state" --bundles "$RUN/none" \
    --pulse-server "unix:$RUN/no-pulse" --gpsd 127.0.0.1:1 --log-level error &
DAEMON=$!
for _ in $(seq 1 100); do [ -S "$RUN/d.sock" ] && break; sleep 0.1; done
"$BIN/bgbench" ipc --socket "$RUN/d.sock" --daemon-pid "$DAEMON" "$@"
