"""The report of scripts/bench.sh: reads DIR/raw.jsonl (one line per measure and round, see
benchrecord.py) and DIR/samples, writes results.json, results.md, latency CDF plots and, for a
full run, a dated line in history.jsonl and history.md.

    /usr/bin/python3 scripts/lib/bench-report.py DIR --rounds N --quick 0|1 --commit REV [--failed TEXT]
"""
import argparse
import datetime
import glob
import json
import os
import statistics

parser = argparse.ArgumentParser()
parser.add_argument("directory")
parser.add_argument("--rounds", type=int, default=1)
parser.add_argument("--quick", default="0")
parser.add_argument("--commit", default="unknown")
parser.add_argument("--failed", default="")
options = parser.parse_args()
directory = options.directory
quick = options.quick == "1"

records = []
raw = os.path.join(directory, "raw.jsonl")
if os.path.exists(raw):
    with open(raw) as lines:
        records = [json.loads(line) for line in lines if line.strip()]

# One entry per measure, in the order the benchmarks first reported them.
measures = {}
for record in records:
    key = (record["bench"], record["measure"])
    measures.setdefault(key, []).append(record)


def ratio(record):
    """ours/baseline, or ours alone for a measure with no peer (idle wakeups)."""
    baseline = record.get("baseline")
    if baseline is None:
        return record["ours"]
    return record["ours"] / baseline if baseline else float("inf")


results = []
for (bench, measure), rounds in measures.items():
    ratios = [ratio(r) for r in rounds]
    first = rounds[0]
    has_baseline = first.get("baseline") is not None
    median = statistics.median(ratios)
    goal = first.get("goal")
    higher = first.get("higherIsBetter", False)
    met = None
    if goal is not None:
        met = median >= goal if higher else median <= goal
    results.append({
        "bench": bench, "measure": measure, "unit": first["unit"],
        "baselineName": first.get("baselineName"),
        "ours": statistics.median(r["ours"] for r in rounds),
        "baseline": statistics.median(r["baseline"] for r in rounds) if has_baseline else None,
        "ratio": median if has_baseline else None,
        "value": None if has_baseline else median,
        "spread": [min(ratios), max(ratios)], "rounds": len(rounds),
        "goal": goal, "higherIsBetter": higher, "met": met,
    })

now = datetime.datetime.now(datetime.timezone.utc)
summary = {
    "date": now.strftime("%Y-%m-%d %H:%M UTC"), "commit": options.commit, "quick": quick,
    "rounds": options.rounds, "failed": options.failed or None, "measures": results,
}
with open(os.path.join(directory, "results.json"), "w") as out:
    json.dump(summary, out, indent=2, sort_keys=True)
    out.write("\n")


def number(value):
    if value is None:
        return "—"
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def goal_text(result):
    goal = result["goal"]
    if goal is None:
        return ""
    if result["ratio"] is None:
        return f"{number(goal)}"
    return f"{'≥' if result['higherIsBetter'] else '≤'} {number(goal)}x"


lines = [
    f"Run of {summary['date']} at {options.commit}: {options.rounds} round(s)"
    f"{', quick' if quick else ''}; each ratio is ours/baseline, the median of the rounds, with their spread.",
    "",
    "| bench | measure | baseline | ours | ratio (spread) | goal | met |",
    "|---|---|---|---|---|---|---|",
]
for r in results:
    baseline = f"{r['baselineName']}: {number(r['baseline'])} {r['unit']}" if r["baseline"] is not None else "—"
    ours = f"{number(r['ours'])} {r['unit']}"
    if r["ratio"] is not None:
        spread = f" ({number(r['spread'][0])}–{number(r['spread'][1])})" if r["rounds"] > 1 else ""
        ratio_text = f"{number(r['ratio'])}x{spread}"
    else:
        ratio_text = "—"
    met = {True: "yes", False: "**no**", None: ""}[r["met"]]
    lines.append(f"| {r['bench']} | {r['measure']} | {baseline} | {ours} | {ratio_text} | {goal_text(r)} | {met} |")
if options.failed:
    lines += ["", f"Failed, so missing above: {options.failed}."]

# Latency CDFs: ours beside the baseline, every round's samples together.
plots = []
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
    lines += ["", "No plots: matplotlib is missing (scripts/setup.sh --bench installs python3-matplotlib)."]
pairs = [
    ("ipc", "control round trip", "µs", "ipc-backgrounderd", "ipc-echo", "Unix-socket echo"),
    ("ipc-pinned", "control round trip, one CPU", "µs", "ipc-backgrounderd-pinned", "ipc-echo-pinned", "Unix-socket echo"),
    ("relaunch", "event to didFinishLaunching", "µs", "relaunch-backgrounderd", "relaunch-fork-exec", "fork/exec"),
    ("location", "gpsd to app", "ms", "location-app", "location-gpspipe", "gpspipe -w"),
    ("audio-latency", "added audio latency", "ms", "audio-latency-backgrounderd", "audio-latency-pacat", "pacat"),
]
samples_dir = os.path.join(directory, "samples")


def load(name):
    values = []
    for path in sorted(glob.glob(os.path.join(samples_dir, f"{name}-round*.txt"))):
        with open(path) as lines_in:
            values += [float(line) for line in lines_in if line.strip()]
    return sorted(values)


for name, title, unit, ours_name, peer_name, peer_label in pairs if plt else []:
    ours, peer = load(ours_name), load(peer_name)
    if not ours or not peer:
        continue
    figure, axes = plt.subplots(figsize=(6, 3.5))
    for values, label in ((ours, "backgrounderd"), (peer, peer_label)):
        axes.plot(values, [(i + 1) / len(values) for i in range(len(values))], label=label)
    axes.set_xscale("log")
    axes.set_xlabel(unit)
    axes.set_ylabel("fraction")
    axes.set_title(f"{title}: CDF")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    path = os.path.join(directory, f"{name}-cdf.png")
    figure.savefig(path, dpi=100)
    plt.close(figure)
    plots.append(os.path.basename(path))
# The player's cgroup frozen or running while it plays (scripts/bench-audio.sh), first round.
for variant, label in (("", "frozen between refills"), ("-running", "kept running (--no-refill-freeze)")):
    path = os.path.join(samples_dir, f"audio-frozen{variant}-round1.txt")
    if not plt or not os.path.exists(path):
        continue
    with open(path) as lines_in:
        points = [(float(t), int(state)) for t, state in (line.split() for line in lines_in if line.strip())]
    if len(points) < 2:
        continue
    figure, axes = plt.subplots(figsize=(8, 1.8))
    times = [t for t, _ in points]
    states = [state for _, state in points]
    axes.step(times + [times[-1]], states + [states[-1]], where="post", linewidth=0.8)
    axes.fill_between(times, states, step="post", alpha=0.3)
    axes.set_yticks([0, 1], ["running", "frozen"])
    axes.set_xlabel("seconds of playback")
    axes.set_title(f"the player's cgroup while music plays, {label}", fontsize=9)
    figure.tight_layout()
    name = f"audio-frozen{variant}-timeline.png"
    figure.savefig(os.path.join(directory, name), dpi=100)
    plt.close(figure)
    plots.append(name)
# Cost against the number of apps (scripts/bench-scale.sh): per app, so flat is the goal.
scale = [r for r in results if r["bench"] == "scale"]
if plt and scale:
    series = {}
    for r in scale:
        measure, _, apps = r["measure"].rpartition(", ")
        series.setdefault((measure, r["unit"]), []).append((int(apps.split()[0]), r["ours"]))
    shown = [(key, points) for key, points in series.items() if "per app" in key[0] or key[0] == "bgctl ps"]
    if shown:
        figure, axes_list = plt.subplots(1, len(shown), figsize=(4 * len(shown), 3.5), squeeze=False)
        for axes, ((measure, unit), points) in zip(axes_list[0], shown):
            points.sort()
            axes.plot([p[0] for p in points], [p[1] for p in points], marker="o")
            axes.set_xscale("log")
            axes.set_xlabel("apps")
            axes.set_ylabel(unit)
            axes.set_title(measure, fontsize=9)
            axes.grid(True, which="both", alpha=0.3)
        figure.tight_layout()
        figure.savefig(os.path.join(directory, "scale.png"), dpi=100)
        plt.close(figure)
        plots.append("scale.png")
if plots:
    lines += ["", "Plots: " + ", ".join(f"[{p}]({p})" for p in plots) + "."]

with open(os.path.join(directory, "results.md"), "w") as out:
    out.write("\n".join(lines) + "\n")

# The history: one dated line of ratios per full run; a quick run is a smoke test, not kept.
if not quick:
    history_path = os.path.join(directory, "history.jsonl")
    entry = {"date": summary["date"], "commit": options.commit, "rounds": options.rounds,
             "ratios": {f"{r['bench']}: {r['measure']}": r["ratio"] if r["ratio"] is not None else r["value"]
                        for r in results}}
    with open(history_path, "a") as out:
        out.write(json.dumps(entry, sort_keys=True) + "\n")
    with open(history_path) as entries_in:
        entries = [json.loads(line) for line in entries_in if line.strip()]
    names = []
    for entry in entries:
        names += [name for name in entry["ratios"] if name not in names]
    history = ["Ratios to the baseline (or the value, where there is none), one line per full run of scripts/bench.sh.",
               "", "| measure | " + " | ".join(f"{e['date'][:10]} {e['commit']}" for e in entries) + " |",
               "|---|" + "---|" * len(entries)]
    for name in names:
        history.append(f"| {name} | " + " | ".join(number(e["ratios"].get(name)) for e in entries) + " |")
    with open(os.path.join(directory, "history.md"), "w") as out:
        out.write("\n".join(history) + "\n")
