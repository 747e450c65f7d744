#!/usr/bin/env bash
# Sets everything up and runs every test: fixture determinism, formatting, then the Swift
# Testing suites (unit tests and integration tests against a real gpsd under gpsfake, a
# private PulseAudio, real daemon processes and a real SQLite file).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --no-build

echo "== fixtures are what scripts/make-walks.py generates"
python3 scripts/make-walks.py --check

echo "== swift format lint"
swift format lint --strict --recursive Package.swift Sources Tests Samples Plugins Benchmarks

echo "== swift test"
swift build --build-tests
swift test --skip-build "$@"
