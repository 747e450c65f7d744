#!/usr/bin/env bash
# Sets everything up and runs every test: fixture determinism, formatting, then the Swift
# Testing suites (unit tests and integration tests against a real gpsd under gpsfake, a
# private PulseAudio, real daemon processes and a real SQLite file). Afterwards it lists every
# skipped test with its reason (with CI=true or REQUIRE_SERVICES=1 a skip fails the run) and
# checks that nothing the tests started outlived them (scripts/check-leftovers.sh).
#
#   scripts/test.sh [SWIFT TEST OPTIONS...]          everything (e.g. --filter Location)
#   scripts/test.sh --sanitize address|thread        the suites that exercise the C shims, the
#                                                    audio ring, descriptor passing, the IPC codec
#                                                    and the D-Bus layer, built with ASan or TSan
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

SANITIZER=
if [ "${1:-}" = "--sanitize" ]; then
    SANITIZER=${2:?--sanitize takes address or thread}
    shift 2
    case "$SANITIZER" in address | thread) ;; *)
        echo "test.sh: --sanitize takes address or thread, not '$SANITIZER'" >&2
        exit 64
        ;;
    esac
fi

scripts/setup.sh --no-build

BUILD=(--scratch-path "$ROOT/.build")
FILTER=()
if [ -n "$SANITIZER" ]; then
    BUILD=(--scratch-path "$ROOT/.build-$SANITIZER" --sanitize="$SANITIZER")
    # A policy plug-in is a shared library built with the same sanitizer, calling into its
    # runtime; ThreadSanitizer's runtime is linked into the executable, so the daemon exports
    # its symbols for dlopen to find (ASan's is a shared library already).
    [ "$SANITIZER" = thread ] && BUILD+=(-Xlinker --export-dynamic)
    # The suites that reach the code a sanitizer can judge: the C shims (sandboxed spawn,
    # policy plug-ins), the shared-memory audio ring, descriptor passing, the wire codec, and
    # the D-Bus layer through a sanitized daemon. Integration suites run the daemon built here.
    # Not AudioServerTests: its recorder, slowed by the sanitizer, missed the tone it waits for in
    # CI; the shared-memory ring it uses is AudioRingTests' and the audio-ring fuzz target's.
    SUITES=${SANITIZED_SUITES:-BackgrounderProtocolTests|BackgroundKitTests|DBusPeerTests|DesktopBusTests|SandboxTests|PolicyPluginTests|DoorbellFloodTests|SocketAbuseTests|HostileAppTests|LifecycleTests|ProcessWatchTests}
    FILTER=(--filter "$SUITES")
    # Leaks are not findings here: the daemon's long-lived singletons and Swift metadata are
    # reported at exit, which says nothing about the code under test.
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:halt_on_error=1}
    export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
else
    echo "== fixtures are what scripts/make-walks.py generates"
    python3 scripts/make-walks.py --check

    echo "== swift format lint"
    swift format lint --strict --recursive Package.swift Sources Tests Samples Plugins Benchmarks
fi

# Every scratch file of the run goes under one directory of its own, checked empty afterwards
# (another directory for a second run on the same machine at the same time).
export BACKGROUNDER_TEST_SCRATCH=${BACKGROUNDER_TEST_SCRATCH:-/tmp/bgt}
# What is there before the run is not the run's: an interrupted earlier run (or one with
# another scratch directory) may have left processes, app cgroups or namespaces behind. They
# are named and cleared now, so that the check afterwards judges this run alone.
# Captured, not piped: a pipe's other side would carry the scratch variable without being an
# ancestor of the check, and be taken for a leftover of the run.
echo "== before the run: what earlier runs left"
earlier=$(scripts/check-leftovers.sh "$BACKGROUNDER_TEST_SCRATCH" 2>&1) || true
sed 's/^/  (earlier) /' <<<"$earlier"
mkdir -p -m 755 "$BACKGROUNDER_TEST_SCRATCH"

echo "== swift test${SANITIZER:+ (sanitizer: $SANITIZER)}"
start=$SECONDS
# The import check holds the architecture: a target that imports one it does not declare
# (a capability another capability, the system layer the app core) fails the build.
BUILD_LOG=$(mktemp /tmp/backgrounder-build-log.XXXXXX)
swift build --build-tests --explicit-target-dependency-import-check error "${BUILD[@]}" 2>&1 | tee "$BUILD_LOG"
echo "== built in $((SECONDS - start)) s"
# The project builds without a warning (Swift 6 mode, strict concurrency). The compiler only
# warns about the files it compiles, so a fresh build (CI's) sees them all; a warning in a
# dependency is its own.
warnings=$(grep -E "^$ROOT/(Sources|Tests|Samples|Plugins|Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning:" "$BUILD_LOG" | sort -u || true)
rm -f "$BUILD_LOG"
if [ -n "$warnings" ]; then
    echo "== warnings ($(wc -l <<<"$warnings")):"
    sed 's/^/  /' <<<"$warnings"
    if [ "${CI:-}" = true ]; then
        echo "test.sh: the build warned; with CI=true a warning fails the run" >&2
        exit 1
    fi
fi
LOG=$(mktemp /tmp/backgrounder-test-log.XXXXXX)
# Swift Testing 6.3 starts every test case at once unless told a width: some 900 cases, most
# of them starting a daemon, a sound server or gpsd, on two cores. Under load that herd held
# the two threads of the concurrency pool for minutes and 140 tests ran past their time limit
# (docs/TESTING.md, run BG). A width bounds how many run at once, and a test's time limit
# starts when it runs, not while it waits for a place.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}
echo "== at most $SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH test cases at once"
start=$SECONDS
status=0
swift test --skip-build "${BUILD[@]}" "${FILTER[@]}" "$@" 2>&1 | tee "$LOG" || status=$?
echo "== tests ran in $((SECONDS - start)) s"

# Swift Testing prints `➜ Test "NAME" skipped: "REASON"` (and `Suite`) for every skip.
skips=$(grep -E '^➜ (Test|Suite) .* skipped' "$LOG" || true)
rm -f "$LOG"
if [ -n "$skips" ]; then
    echo "== skipped ($(wc -l <<<"$skips")):"
    sed 's/^➜ /  /' <<<"$skips"
    if [ "${CI:-}" = true ] || [ "${REQUIRE_SERVICES:-}" = 1 ]; then
        echo "test.sh: a skipped test is a failure here (CI=true or REQUIRE_SERVICES=1): every service it needs should be on this machine" >&2
        [ "$status" -ne 0 ] || status=1
    fi
else
    echo "== skipped: none"
fi

echo "== leftovers"
scripts/check-leftovers.sh "$BACKGROUNDER_TEST_SCRATCH" || { [ "$status" -ne 0 ] || status=1; }
exit "$status"
