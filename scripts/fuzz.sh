#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/Targets with AddressSanitizer and runs each for a while
# on a copy of its seed corpus (docs/FUZZING.md).
#
#   scripts/fuzz.sh [--seconds N] [--build-only] [TARGET...] [-- LIBFUZZER_OPTION...]
#
# Targets: protocol info-plist gpsd http-headers feeds audio-ring (all when none is named).
# Builds in .build-fuzz/ (the project's modules compiled straight with swiftc, no SwiftPM, so
# it never waits for .build's lock); only what changed is rebuilt. Each target then runs for N
# seconds (default 30) and one line per target gives executions, executions per second,
# coverage (libFuzzer's cov: edges and ft: features), corpus size and crashes. Crash inputs
# are kept in .build-fuzz/crashes/TARGET/ and the script exits 1 when there is one. Options
# after -- go to every target (-rss_limit_mb=8192 for an hour of feeds, whose XMLParser leaks).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

ALL_TARGETS=(protocol info-plist gpsd http-headers feeds audio-ring)
seconds=30
build_only=false
targets=()
extra_options=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds)
            [ $# -ge 2 ] || { echo "fuzz: --seconds needs a number" >&2; exit 2; }
            seconds=$2
            shift 2
            ;;
        --seconds=*) seconds=${1#--seconds=}; shift ;;
        --build-only) build_only=true; shift ;;
        --) shift; extra_options=("$@"); break ;;
        -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
        *)
            if [[ " ${ALL_TARGETS[*]} " != *" $1 "* ]]; then
                echo "fuzz: unknown target '$1' (targets: ${ALL_TARGETS[*]})" >&2
                exit 2
            fi
            targets+=("$1")
            shift
            ;;
    esac
done
[[ "$seconds" =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] || { echo "fuzz: --seconds wants a positive whole number" >&2; exit 2; }
[ ${#targets[@]} -gt 0 ] || targets=("${ALL_TARGETS[@]}")

# The toolchain's own clang: its libFuzzer and AddressSanitizer runtimes are the ones swiftc links.
SWIFTC=$(command -v swiftc || true)
[ -n "$SWIFTC" ] || SWIFTC=/opt/swift/usr/bin/swiftc
[ -x "$SWIFTC" ] || { echo "fuzz: swiftc is not on PATH (nor in /opt/swift/usr/bin)" >&2; exit 1; }
TOOLCHAIN=$(dirname "$(readlink -f "$SWIFTC")")
CLANG=$TOOLCHAIN/clang
AR=$TOOLCHAIN/llvm-ar
[ -x "$AR" ] || AR=ar

# The gpsd target parses with the system's libgps, the one the daemon links.
if [[ " ${targets[*]} " == *" gpsd "* ]] && [ ! -e /usr/include/gps.h ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "fuzz: installing libgps-dev (the gpsd target links libgps)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq --no-install-recommends libgps-dev >/dev/null \
            || { apt-get update -qq && apt-get install -y -qq --no-install-recommends libgps-dev >/dev/null; }
    else
        echo "fuzz: the gpsd target needs libgps-dev: sudo apt-get install libgps-dev (or scripts/setup.sh)" >&2
        exit 1
    fi
fi

BUILD=$ROOT/.build-fuzz
mkdir -p "$BUILD/modules" "$BUILD/lib" "$BUILD/obj" "$BUILD/bin" "$BUILD/stamps"
# One run at a time: two would rebuild the same libraries and empty each other's working
# corpora and crash directories.
exec 9>"$BUILD/lock"
if ! flock -n 9; then
    echo "fuzz: waiting for another scripts/fuzz.sh to finish with .build-fuzz"
    flock 9
fi

SWIFT_FLAGS=(-swift-version 6 -package-name backgrounder -enable-upcoming-feature InternalImportsByDefault
    -enable-upcoming-feature ExistentialAny -sanitize=fuzzer,address -Onone -g -wmo
    -I "$BUILD/modules" -I "$BUILD/modules/CAudioRing" -I "$ROOT/Sources/CGPS")
LINK_FLAGS=()
[ -x "$TOOLCHAIN/ld.lld" ] && LINK_FLAGS=(-use-ld=lld)

# up_to_date NAME FILE...: whether NAME was built from exactly these files and flags; the
# stamp is written by `stamp` after a successful build.
fingerprint() { { printf '%s\n' "${SWIFT_FLAGS[*]}" "$@"; cat "$@"; } | sha256sum | cut -d' ' -f1; }
up_to_date() {
    local name=$1
    shift
    [ -f "$BUILD/stamps/$name" ] && [ "$(cat "$BUILD/stamps/$name")" = "$(fingerprint "$@")" ]
}
stamp() {
    local name=$1
    shift
    fingerprint "$@" >"$BUILD/stamps/$name"
}

# swift_library NAME EXTRA_FLAGS DEPENDENCIES SOURCE...: a static library and its module,
# rebuilt when a source or a library it imports (DEPENDENCIES, names) changed. The compiler
# writes objects into its working directory, so it runs in obj/.
swift_library() {
    local name=$1 extra=$2 dependencies=$3
    shift 3
    local inputs=("$@") library
    for library in $dependencies; do inputs+=("$BUILD/lib/lib$library.a"); done
    if up_to_date "lib$name" "${inputs[@]}"; then return; fi
    echo "fuzz: building $name ($# files)"
    # shellcheck disable=SC2086 # extra holds separate flags
    (cd "$BUILD/obj" && "$SWIFTC" -parse-as-library -module-name "$name" "${SWIFT_FLAGS[@]}" $extra \
        -emit-module -emit-module-path "$BUILD/modules/$name.swiftmodule" \
        -emit-library -static -o "$BUILD/lib/lib$name.a" "$@")
    stamp "lib$name" "${inputs[@]}"
}

# harness TARGET LIBRARIES SOURCE...: a fuzzer executable from the harness and any sources
# compiled with it, linked with the libraries (names, most dependent first).
harness() {
    local target=$1 libraries=$2
    shift 2
    local sources=("$ROOT/Fuzz/Targets/$target.swift" "$@")
    local inputs=("${sources[@]}")
    local library
    for library in $libraries; do inputs+=("$BUILD/lib/lib$library.a"); done
    if [ -x "$BUILD/bin/$target" ] && up_to_date "bin-$target" "${inputs[@]}"; then return; fi
    echo "fuzz: linking $target"
    local module=Fuzz_${target//-/_}
    (cd "$BUILD/obj" && "$SWIFTC" -parse-as-library -module-name "$module" "${SWIFT_FLAGS[@]}" \
        "${LINK_FLAGS[@]}" "${sources[@]}" -L "$BUILD/lib" $(for l in $libraries; do printf -- '-l%s ' "$l"; done) \
        -o "$BUILD/bin/$target")
    stamp "bin-$target" "${inputs[@]}"
}

needs() { [[ " ${targets[*]} " == *" $1 "* ]]; }

build_start=$(date +%s.%N)

mapfile -t core_sources < <(find "$ROOT/Sources/BackgrounderCore" -name '*.swift' | sort)
swift_library BackgrounderCore "" "" "${core_sources[@]}"

if needs protocol || needs audio-ring; then
    # CAudioRing: its header as a module, its C file instrumented like the rest.
    mkdir -p "$BUILD/modules/CAudioRing"
    printf 'module CAudioRing {\n    header "%s"\n    export *\n}\n' \
        "$ROOT/Sources/CAudioRing/include/audio_ring.h" >"$BUILD/modules/CAudioRing/module.modulemap"
    if ! up_to_date libCAudioRing "$ROOT/Sources/CAudioRing/audio_ring.c" "$ROOT/Sources/CAudioRing/include/audio_ring.h"; then
        echo "fuzz: building CAudioRing"
        "$CLANG" -c -g -O1 -fsanitize=fuzzer-no-link,address -I "$ROOT/Sources/CAudioRing/include" \
            "$ROOT/Sources/CAudioRing/audio_ring.c" -o "$BUILD/obj/audio_ring.o"
        rm -f "$BUILD/lib/libCAudioRing.a"
        "$AR" rcs "$BUILD/lib/libCAudioRing.a" "$BUILD/obj/audio_ring.o"
        stamp libCAudioRing "$ROOT/Sources/CAudioRing/audio_ring.c" "$ROOT/Sources/CAudioRing/include/audio_ring.h"
    fi
    mapfile -t protocol_sources < <(find "$ROOT/Sources/BackgrounderProtocol" -name '*.swift' | sort)
    # -enable-testing: the audio-ring harness reads the ring's own mapping (@testable import).
    swift_library BackgrounderProtocol "-enable-testing" "BackgrounderCore CAudioRing" "${protocol_sources[@]}"
fi

if needs gpsd; then
    # The daemon's libgps reader alone, with -enable-private-imports so the harness can call
    # its private conversion of gps_data_t into a Location.
    swift_library BackgrounderLocation "-enable-private-imports" "BackgrounderCore" \
        "$ROOT/Sources/Capabilities/Location/GPSDConnection.swift"
fi

if needs feeds; then
    # The one file of SampleSupport that the feed parsers use: the rest needs BackgroundKit.
    swift_library SampleSupport "" "" "$ROOT/Samples/SampleSupport/XMLParserGuard.swift"
fi

needs protocol && harness protocol "BackgrounderProtocol CAudioRing BackgrounderCore"
needs info-plist && harness info-plist "BackgrounderCore"
needs gpsd && harness gpsd "BackgrounderLocation BackgrounderCore"
needs http-headers && harness http-headers "BackgrounderCore"
needs feeds && harness feeds "SampleSupport" \
    "$ROOT/Samples/FeedReader/FeedParser.swift" "$ROOT/Samples/FeedReader/FeedError.swift" \
    "$ROOT/Samples/FeedReader/FeedItem.swift" "$ROOT/Samples/Podcasts/EnclosureParser.swift" \
    "$ROOT/Samples/Podcasts/Enclosure.swift" "$ROOT/Samples/Podcasts/PodcastError.swift"
needs audio-ring && harness audio-ring "BackgrounderProtocol CAudioRing BackgrounderCore"

build_seconds=$(awk -v a="$build_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
echo "fuzz: build took ${build_seconds} s"
$build_only && exit 0

# Swift's own crash backtracer reads the stack in a way AddressSanitizer reports as a bug of
# its own; libFuzzer prints the stack instead. Leaks in the toolchain's libraries are listed
# in Fuzz/lsan.supp.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$ROOT/Fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

# number KEY LOG: a libFuzzer final statistic (stat::KEY: N).
number() { sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$2" | tail -1; }

run_start=$(date +%s.%N)
summary=()
failed=()
for target in "${targets[@]}"; do
    work=$BUILD/run/$target
    crashes=$BUILD/crashes/$target
    rm -rf "$work" "$crashes"
    mkdir -p "$work/corpus" "$crashes"
    # A copy: libFuzzer adds what it finds to the corpus it is given.
    cp "$ROOT/Fuzz/Corpus/$target/"* "$work/corpus/"
    options=()
    [ -f "$ROOT/Fuzz/Dictionaries/$target.dict" ] && options+=(-dict="$ROOT/Fuzz/Dictionaries/$target.dict")
    # XMLParser leaks on every malformed document (Fuzz/lsan.supp), so libFuzzer would run a
    # whole leak check after nearly every input: 40 inputs a second instead of 1,700.
    [ "$target" = feeds ] && options+=(-detect_leaks=0)
    echo "fuzz: running $target for $seconds s (log: $work/log)"
    status=0
    "$BUILD/bin/$target" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$crashes/" "${options[@]}" "${extra_options[@]}" "$work/corpus" </dev/null >"$work/log" 2>&1 || status=$?
    executions=$(number number_of_executed_units "$work/log")
    rate=$(number average_exec_per_sec "$work/log")
    coverage=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/log" | tail -1 || true)
    corpus=$(find "$work/corpus" -type f | wc -l)
    found=$(find "$crashes" -type f | wc -l)
    summary+=("$(printf '%-13s %10s execs %8s exec/s  %-20s corpus %5s  crashes %s' "$target" "${executions:-?}" \
        "${rate:-?}" "${coverage:-cov: ?}" "$corpus" "$found")")
    if [ "$status" -ne 0 ] || [ "$found" -gt 0 ]; then
        failed+=("$target")
        echo "fuzz: $target FAILED (exit status $status); the end of its log:"
        grep -v '^#[0-9]' "$work/log" | tail -40 | sed 's/^/    /'
        for input in "$crashes"/*; do
            [ -e "$input" ] && echo "fuzz: crash input $input (reproduce: $BUILD/bin/$target $input)"
        done
    fi
done
run_seconds=$(awk -v a="$run_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')

echo
echo "fuzz: ${seconds} s per target; build ${build_seconds} s, fuzzing ${run_seconds} s"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in ${failed[*]}; inputs in $BUILD/crashes/" >&2
    exit 1
fi
echo "fuzz: no crashes"
