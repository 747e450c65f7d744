#!/usr/bin/env bash
# After a test run: nothing it started may outlive it. Names every leftover (a process started
# by the run, an app cgroup, a network namespace, a mount, a file in the scratch directory),
# then clears it so the machine is clean again, and exits 1 if there was any.
#
#   scripts/check-leftovers.sh SCRATCH
set -uo pipefail
SCRATCH=${1:?usage: check-leftovers.sh SCRATCH}
left=0

report() {
    echo "leftover: $*" >&2
    left=$((left + 1))
}

# This script and its ancestors (test.sh, .ci/run) are not leftovers.
ours=" $$ "
pid=$$
while [ "$pid" -gt 1 ]; do
    pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null || echo 1)
    ours+="$pid "
done

# Processes: by executable, working directory or command line inside the scratch directory (the
# daemons, their apps, gpsd and PulseAudio all run with files there), or by the scratch
# variable in their environment (whatever the test process started inherits it). A daemon run
# from the same build by a person, or by a soak, is not the run's.
victims=()
for proc in /proc/[0-9]*; do
    pid=${proc#/proc/}
    case "$ours" in *" $pid "*) continue ;; esac
    exe=$(readlink "$proc/exe" 2>/dev/null) || continue
    cwd=$(readlink "$proc/cwd" 2>/dev/null || true)
    cmdline=$(tr '\0' ' ' <"$proc/cmdline" 2>/dev/null || true)
    if [[ "$exe" == "$SCRATCH"/* || "$cwd" == "$SCRATCH"/* || "$cwd" == "$SCRATCH" || "$cmdline" == *"$SCRATCH/"* ]] ||
        tr '\0' '\n' <"$proc/environ" 2>/dev/null | grep -qxF "BACKGROUNDER_TEST_SCRATCH=$SCRATCH"; then
        report "process $pid ($exe): ${cmdline:0:200}"
        victims+=("$pid")
    fi
done

# App cgroups: every daemon makes backgrounder.HASH under its own cgroup and removes it when it
# stops cleanly; one left behind holds apps nobody supervises.
cgroup2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
groups=()
# The groups of daemons still running that are not ours (a person's service, another
# checkout's run) are theirs: a group is named backgrounder.FNV1A(state directory).
live_groups() {
    python3 - "$@" <<'PY'
import os, sys
victims = set(sys.argv[1:])
def fnv(text):
    value = 0xcbf29ce484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return format(value, "x")
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        arguments = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace").split("\0")
    except OSError:
        continue
    if pid in victims or not arguments or not arguments[0].endswith("backgrounderd"):
        continue
    for flag, value in zip(arguments, arguments[1:]):
        if flag == "--state-dir":
            print("backgrounder." + fnv(os.path.normpath(os.path.join(os.readlink(f"/proc/{pid}/cwd"), value))))
PY
}
theirs=" $(live_groups "${victims[@]}" | tr '\n' ' ') "
if [ -n "$cgroup2" ]; then
    while IFS= read -r group; do
        case "$theirs" in *" ${group##*/} "*) continue ;; esac
        # A backgrounderd that is not ours (a person's systemd service) keeps its group.
        procs=$(cat "$group"/cgroup.procs "$group"/*/cgroup.procs 2>/dev/null | head -5 | tr '\n' ' ')
        children=$(find "$group" -mindepth 1 -maxdepth 1 -type d -printf '%f ' 2>/dev/null)
        report "cgroup $group${procs:+ (processes $procs)}${children:+ (holding $children)}"
        groups+=("$group")
    done < <(find "$cgroup2" -maxdepth 4 -type d -name 'backgrounder.*' 2>/dev/null)
fi

# Network namespaces the conditions tests make (bgcond-XXXXXXXX).
namespaces=()
if command -v ip >/dev/null; then
    while read -r name _; do
        [ -n "$name" ] || continue
        report "network namespace $name"
        namespaces+=("$name")
    done < <(ip netns list 2>/dev/null | grep '^bgcond-')
fi

# Mounts (the disk-full tests' small tmpfs) and files in the scratch directory.
mounts=()
while read -r _ target _; do
    if [[ "$target" == "$SCRATCH"/* ]]; then
        report "mount $target"
        mounts+=("$target")
    fi
done </proc/mounts
if [ -d "$SCRATCH" ]; then
    while IFS= read -r entry; do report "scratch $entry"; done < <(find "$SCRATCH" -mindepth 1 -maxdepth 1 2>/dev/null)
fi

# Clear it all, so the next run (or the person) starts clean.
for pid in "${victims[@]}"; do kill -KILL "$pid" 2>/dev/null; done
for group in "${groups[@]}"; do
    for child in "$group"/*/; do
        [ -d "$child" ] || continue
        [ -f "$child/cgroup.kill" ] && echo 1 >"$child/cgroup.kill" 2>/dev/null
        # cgroup.kill only sends SIGKILL: the group empties when its processes have died.
        for _ in $(seq 1 50); do grep -q "populated 0" "$child/cgroup.events" 2>/dev/null && break; sleep 0.1; done
        rmdir "$child" 2>/dev/null
    done
    rmdir "$group" 2>/dev/null || echo "check-leftovers: could not remove $group" >&2
done
for name in "${namespaces[@]}"; do ip netns delete "$name" 2>/dev/null; done
for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null; done
[ -d "$SCRATCH" ] && rm -rf "$SCRATCH" 2>/dev/null

if [ "$left" -gt 0 ]; then
    echo "check-leftovers: $left thing(s) outlived the run (listed above; now cleared)" >&2
    exit 1
fi
echo "check-leftovers: nothing outlived the run"
