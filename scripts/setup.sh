#!/usr/bin/env bash
# Installs what Backgrounder needs on Debian 12 (only what is missing), then builds the
# package and bundles the samples into Bundles/. Safe to run again.
#
#   scripts/setup.sh            install + build + bundle
#   scripts/setup.sh --no-build install only
#   scripts/setup.sh --bench    also what scripts/bench.sh needs
set -euo pipefail
cd "$(dirname "$0")/.."

# gpsd/gpsd-clients: the real gpsd and gpsfake; libgps-dev, libpulse-dev, libsqlite3-dev:
# the C libraries the package links; pulseaudio(-utils): a private server, pacat and parec;
# socat: to speak the control protocol by hand (docs/PROTOCOL.md).
# gpsbabel, libxml2-utils: read HikeRecorder's GPX back with two other tools (tests).
# libnotify-bin: notify-send, RegionAlerts' desktop notification.
# libsndfile1-dev: BackgroundKit decodes WAV, FLAC, Ogg and MP3 files with libsndfile.
# iproute2: `ip netns`, so the tests run a daemon in a network namespace (the network condition).
# openssl: the transfer tests' throwaway certificate authority; curl: the client that checks
# their HTTP server, and the peer the transfer benchmark compares the daemon with.
# systemd: systemd-analyze and systemd-socket-activate, which check the units and socket
# activation (installing it starts nothing in a container).
# dpkg-dev, binutils, man-db: scripts/package.sh finds the .deb's dependencies (dpkg-shlibdeps)
# and strips its programs; the package test reads the installed man pages (man -w).
# libcurl4-openssl-dev: the release package links Foundation statically, and its URLSession
# (FoundationNetworking, which the samples use) links libcurl.
# libsystemd-dev: sd-bus, the daemon's D-Bus (notifications, MPRIS, logind, UnifiedPush).
# dbus-daemon: the tests' private buses; python3-dbus, python3-gi: the test peers in
# Tests/Fixtures/dbus (Debian's /usr/bin/python3); libglib2.0-bin: gdbus (the tests watch
# signals with gdbus monitor); dbus-bin: dbus-send and dbus-monitor, to poke a bus by hand;
# playerctl: the MPRIS client the media tests drive (busctl comes with systemd).
# e2fsprogs, mount: mkfs.ext4 and mount, which give each app's data directory a volume of its
# quota's size under a root daemon.
PACKAGES=(gpsd gpsd-clients libgps-dev pulseaudio pulseaudio-utils libpulse-dev libsqlite3-dev socat python3
    gpsbabel libxml2-utils libnotify-bin libsndfile1-dev iproute2 openssl curl systemd dpkg-dev binutils man-db
    libcurl4-openssl-dev libsystemd-dev dbus-daemon dbus-bin python3-dbus python3-gi libglib2.0-bin playerctl
    e2fsprogs mount)

# With --bench (scripts/bench.sh): Debian's matplotlib, for the plots.
BUILD=1
for argument in "$@"; do
    case "$argument" in
    --no-build) BUILD=0 ;;
    --bench) PACKAGES+=(python3-matplotlib) ;;
    *) echo "setup: unknown argument $argument (--no-build, --bench)" >&2; exit 64 ;;
    esac
done

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    as_root apt-get update -qq
    export DEBIAN_FRONTEND=noninteractive
    # This image may delete downloaded .deb files mid-install; one retry gets them again.
    if ! as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
        echo "setup: apt-get install failed once; retrying"
        as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
fi

# gpsd's package starts a system gpsd on port 2947 where systemd exists; the project never
# relies on it and starts its own under gpsfake on a free port.

command -v swift >/dev/null || { echo "setup: swift is not on PATH; install Swift 6.2 or later (the pinned swift-log and swift-service-lifecycle need it)" >&2; exit 1; }

if [ "$BUILD" = 1 ]; then
    swift build
    swift package --allow-writing-to-package-directory bundle
fi
