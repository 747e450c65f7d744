#!/usr/bin/env bash
# Every benchmark, each beside its baseline in the same run, repeated, then one report:
#   scripts/bench.sh            three rounds of everything, at full size (about an hour)
#   scripts/bench.sh --quick    one round, smaller counts (a few minutes): a smoke run
#   scripts/bench.sh --rounds N --out DIR --only "ipc location"
#
# Each round runs scripts/bench-{ipc,lifecycle,location,audio,transfer,scale}.sh and the filters
# (audio twice: its player frozen between refills, and kept running: audio-running);
# each appends one JSON line per measure to DIR/raw.jsonl (BENCH_RESULTS) and its latency
# samples to DIR/samples (BENCH_SAMPLES). scripts/lib/bench-report.py then writes:
#   DIR/results.json   every measure: the median of the rounds' ratios to the baseline, their
#                      spread, the goal and whether it is met
#   DIR/results.md     the same as a Markdown table
#   DIR/*.png          latency CDFs (ours beside the baseline)
#   DIR/history.md     a dated line of ratios per full run (history.jsonl holds them)
# DIR is docs/bench by default, which docs/BENCHMARKS.md links; a --quick run writes to
# .bench-quick instead (it is not a measurement to keep). The figures are whatever this machine
# gives while the run is alone on it: read the ratios, which compare with a peer measured
# minutes apart on the same machine.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=3
QUICK=0
OUT=
ONLY="filters ipc lifecycle location audio audio-running transfer scale"
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) QUICK=1; ROUNDS=1; shift ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench: unknown argument $1 (try --help)" >&2; exit 64 ;;
    esac
done
[ -n "$OUT" ] || OUT=$([ "$QUICK" = 1 ] && echo .bench-quick || echo docs/bench)

# The peers (pacat, gpspipe, curl) and the plots' matplotlib, for Debian's python3.
scripts/setup.sh --no-build --bench
echo "== building (release)"
swift build -c release --product backgrounderd >/dev/null
for product in bgctl bgbench bgbundle TestApp BackgroundPlayer; do
    swift build -c release --product "$product" >/dev/null
done

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd) # absolute, for the benchmarks that change directory (and an absolute --out)
export BENCH_RESULTS=$OUT/raw.jsonl BENCH_SAMPLES=$OUT/samples BENCH_QUICK=$QUICK
rm -rf "$BENCH_RESULTS" "$BENCH_SAMPLES"
LOG=$OUT/bench.log
: >"$LOG"
failed=()
for round in $(seq 1 "$ROUNDS"); do
    export BENCH_ROUND=$round
    for bench in $ONLY; do
        echo "== round $round of $ROUNDS: $bench" | tee -a "$LOG"
        case "$bench" in
        filters)
            command=("$(swift build -c release --show-bin-path)/bgbench" filters --regions 20,1000,100000)
            if [ "$QUICK" = 1 ]; then command+=(--fixes 2000); fi
            ;;
        ipc)
            command=(scripts/bench-ipc.sh)
            if [ "$QUICK" = 1 ]; then command+=(--count 2000); fi
            ;;
        lifecycle) command=(scripts/bench-lifecycle.sh) ;;
        location) command=(scripts/bench-location.sh) ;;
        scale) command=(scripts/bench-scale.sh) ;;
        audio)
            command=(scripts/bench-audio.sh)
            if [ "$QUICK" = 1 ]; then command+=(--rounds 1 --seconds 20); fi
            ;;
        audio-running)
            # The same player kept running between refills: what freezing it saves.
            command=(scripts/bench-audio.sh --no-refill-freeze)
            if [ "$QUICK" = 1 ]; then command+=(--rounds 1 --seconds 20); fi
            ;;
        transfer)
            command=(scripts/bench-transfer.sh)
            if [ "$QUICK" = 1 ]; then command+=(--megabytes 64 --rounds 1); fi
            ;;
        *) echo "bench: no benchmark named $bench" >&2; exit 64 ;;
        esac
        # A benchmark that fails is named in the report; the others still run.
        if ! "${command[@]}" </dev/null 2>&1 | tee -a "$LOG"; then
            failed+=("$bench (round $round)")
        fi
    done
done

/usr/bin/python3 scripts/lib/bench-report.py "$OUT" --rounds "$ROUNDS" --quick "$QUICK" \
    --commit "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" --failed "${failed[*]:-}"
echo "== report: $OUT/results.md"
cat "$OUT/results.md"
[ ${#failed[@]} -eq 0 ] || { echo "bench: failed: ${failed[*]}" >&2; exit 1; }
