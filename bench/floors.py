"""Darkroom's CPU per cold JPEG answer against floors that are floors, on
one pinned core.

The floors (bench/jpeg_floor.c, compiled here): libjpeg-turbo decoding
each source at the shrink-on-load scale the fast path uses, rows into one
buffer (`decode_at_scale`), and that decode plus writing the 512-px answer
at quality 80 with 4:2:0 chroma, Huffman tables optimised as Darkroom
writes them (`decode_encode`): one thread on core 1.

Darkroom: `darkroom serve` pinned to core 0 (`taskset`), the origin and
the client on core 1, cold requests one at a time (each source URL new, so
nothing is cached), for `rs:fit:512:512` JPEG answers at quality 80: the
server's CPU time (user and system, from /proc, its children too) over the
requests, per image. Rounds alternate the floor and the server; the
figures are medians with min-max over the rounds.

Usage: .venv/bin/python bench/floors.py .build/release/darkroom [--rounds 3] [--requests-per-photo 4]
"""
import argparse
import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import FolderOrigin, cpu_seconds, free_port, wait_for  # noqa: E402
from inprocess import build_jpeg_floor, jpeg_floor  # noqa: E402
from peers import QUALITY, SIZE  # noqa: E402
from sources import make_sources  # noqa: E402



def darkroom_cpu(binary, scratch, origin, names, requests_per_photo, serial):
    """CPU ms per answer of a fresh server pinned to core 0."""
    port = free_port()
    cache = tempfile.mkdtemp(dir=scratch, prefix="cache-")
    server = subprocess.Popen(["taskset", "-c", "0", binary, "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--allow-private-networks", "--cache-dir", cache, "--memory-cache-mb", "16"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, LOG_LEVEL="error"))
    try:
        wait_for(port, "/health")
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

        def ask(name, n):
            c.request("GET", f"/img/_/rs:fit:{SIZE}:{SIZE}/q:{QUALITY['jpeg']}/plain/http://127.0.0.1:{origin.port}/{name}%3Fr%3D{serial}-{n}@jpg")
            r = c.getresponse()
            body = r.read()
            if r.status != 200:
                raise SystemExit(f"{name}: HTTP {r.status} {body[:120]!r}")
        ask(names[0], "warm")
        before = cpu_seconds([server.pid])
        count = 0
        for n in range(requests_per_photo):
            for name in names:
                ask(name, n)
                count += 1
        used = cpu_seconds([server.pid]) - before
        c.close()
        return used / count * 1000
    finally:
        server.terminate()
        server.wait(30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests-per-photo", type=int, default=4)
    args = parser.parse_args()
    os.sched_setaffinity(0, {1})
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="floors-") as scratch:
        origin_dir, sets = make_sources(scratch, [], other_formats=False)
        tool = build_jpeg_floor(scratch)
        origin = FolderOrigin(origin_dir)
        print(f"{time.strftime('%Y-%m-%d')}, commit {commit}: .venv/bin/python bench/floors.py {args.binary} "
              f"--rounds {args.rounds} --requests-per-photo {args.requests_per_photo}")
        print("| sources | decode_at_scale, ms | decode_encode, ms | Darkroom, CPU ms an answer | Darkroom / decode_encode |")
        print("|---|---|---|---|---|")
        for kind in ("jpeg", "large"):
            names = sets[kind]
            floors, ours = [], []
            for r in range(args.rounds):
                steps = [lambda: floors.append(jpeg_floor(tool, origin_dir, names, 5, core=1, encoders=False)),
                         lambda: ours.append(darkroom_cpu(args.binary, scratch, origin, names, args.requests_per_photo, f"{kind}{r}"))]
                for step in (steps if r % 2 == 0 else reversed(steps)):
                    step()
            if None in floors:
                sys.exit(f"{kind}: the JPEG floor failed (its message is above), so there is no ratio to print")
            scale = [f["decode_at_scale"] for f in floors]
            both = [f["decode_encode_optimised"] for f in floors]
            ratios = [o / b for o, b in zip(ours, both)]

            def span(values):
                return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"
            print(f"| {kind} ({len(names)}) | {span(scale)} | {span(both)} | {span(ours)} | "
                  f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |", flush=True)


if __name__ == "__main__":
    main()
