"""One measure beside its baseline, as scripts/bench.sh collects them.

When BENCH_RESULTS names a file, record() appends a JSON line to it (the same fields as
bgbench's BenchRecord); with BENCH_SAMPLES, samples() writes raw samples there for the
latency plots and timeline() a state's changes over time. Without them both do nothing, so a benchmark run on its own only prints.

From a shell script:
    python3 scripts/lib/benchrecord.py BENCH MEASURE UNIT BASELINE_NAME BASELINE OURS [GOAL] [--higher]
(BASELINE_NAME and BASELINE may be "-" for a measure with no peer).
"""
import json
import os
import sys


def record(bench, measure, unit, baseline_name, baseline, ours, goal=None, higher_is_better=False):
    path = os.environ.get("BENCH_RESULTS")
    if not path:
        return
    line = {"bench": bench, "measure": measure, "unit": unit, "ours": float(ours),
            "higherIsBetter": higher_is_better, "round": int(os.environ.get("BENCH_ROUND", "1"))}
    if baseline_name is not None and baseline is not None:
        line["baselineName"], line["baseline"] = baseline_name, float(baseline)
    if goal is not None:
        line["goal"] = float(goal)
    with open(path, "a") as out:
        out.write(json.dumps(line, sort_keys=True) + "\n")


def _samples_file(name):
    """DIR/NAME-roundN.txt in BENCH_SAMPLES, open for writing, or None without it."""
    directory = os.environ.get("BENCH_SAMPLES")
    if not directory:
        return None
    os.makedirs(directory, exist_ok=True)
    return open(f"{directory}/{name}-round{os.environ.get('BENCH_ROUND', '1')}.txt", "w")


def samples(values, name):
    out = _samples_file(name)
    if out:
        with out:
            out.writelines(f"{value:.3f}\n" for value in values)


def timeline(points, name):
    """(seconds, state) pairs, one per change, for a step plot."""
    out = _samples_file(name)
    if out:
        with out:
            out.writelines(f"{seconds:.4f} {state}\n" for seconds, state in points)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    higher = "--higher" in arguments
    arguments = [a for a in arguments if a != "--higher"]
    if len(arguments) not in (6, 7):
        sys.exit(__doc__)
    bench, measure, unit, baseline_name, baseline, ours = arguments[:6]
    goal = arguments[6] if len(arguments) == 7 else None
    record(bench, measure, unit, None if baseline_name == "-" else baseline_name,
           None if baseline == "-" else baseline, ours, goal, higher)
