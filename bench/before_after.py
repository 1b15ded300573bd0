#!/usr/bin/env python3
"""Darkroom against an earlier build of itself: several rounds of
bench/servers.py, the two builds' order alternating from round to round
(the first one named runs first in each workload), and for every workload
the median requests/s of each build with the range over the rounds, and the
ratio of the medians. servers.py checks in each round that both builds
answered the same work before it measures.

    make bench-before-after BEFORE=BINARY, or
    .venv/bin/python bench/before_after.py --before BINARY [--after BINARY] [--rounds 3] [--seconds 8]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

from rounds import cell, ordered

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r"^  (darkroom(?: before)?)\s+(\S.*?)\s+([\d.]+) (?:req|img)/s")


def one_round(first, second, seconds):
    command = [sys.executable, os.path.join(ROOT, "bench", "servers.py"), "--no-write", "--rounds", "1", "--seconds", str(seconds),
               "--darkroom", first, "--before", second]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"servers.py failed (exit {out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    figures = {}
    for line in out.stdout.splitlines():
        match = LINE.match(line)
        if match:
            who = first if match.group(1) == "darkroom" else second
            figures[(who, match.group(2))] = float(match.group(3))
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--after", default=os.path.join(ROOT, ".build", "release", "darkroom"))
    parser.add_argument("--before", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=int, default=8)
    args = parser.parse_args()
    if not 1 <= args.rounds <= 20 or not 1 <= args.seconds <= 600:
        sys.exit("--rounds 1 to 20, --seconds 1 to 600")

    rounds = []
    for number in range(args.rounds):
        order = ordered((args.after, args.before), number)
        print(f"round {number + 1} of {args.rounds}: {'after' if order[0] == args.after else 'before'} first", flush=True)
        rounds.append(one_round(*order, args.seconds))

    workloads = []
    for figures in rounds:
        for (_, workload) in figures:
            if workload not in workloads:
                workloads.append(workload)
    print(f"\n{args.rounds} rounds, order alternating, {args.seconds} s a run; median (min-max) requests/s\n")
    print("| workload | after | before | after / before |")
    print("|---|---|---|---|")
    for workload in workloads:
        after = [r[(args.after, workload)] for r in rounds if (args.after, workload) in r]
        before = [r[(args.before, workload)] for r in rounds if (args.before, workload) in r]
        if not after or not before:
            continue
        ratio = statistics.median(after) / statistics.median(before)
        print(f"| {workload} | {cell(after)} | {cell(before)} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
