#!/usr/bin/env bash
# A background download of 1 GiB over loopback by the daemon, beside curl -o of the same file
# from the same server, in one run: throughput, CPU and the daemon's resident memory.
#   scripts/bench-transfer.sh [--megabytes N] [--rounds N]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v curl >/dev/null || { echo "bench-transfer: curl is needed (scripts/setup.sh installs it)" >&2; exit 1; }
swift build -c release --product backgrounderd
swift build -c release --product bgbench
BIN=$(swift build -c release --show-bin-path)
"$BIN/bgbench" transfer "$@"
