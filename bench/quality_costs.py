#!/usr/bin/env python3
"""What imgproxy Pro's best format and autoquality (`--set quality`), or its
face options (`--set faces`), cost per image, against the plain run, in one
run of a release `darkroom serve` on loopback.

Every request fits a corpus photo inside 512 x 512 and names a background
colour never used before (the photos have no alpha, so it changes the
cache key and not the work), so each is a miss that decodes, resizes and
encodes. One
client, requests one after another: the figure is the time of one answer,
not throughput. The variants run in rounds, their order alternating; each
round asks every photo once per variant. Printed: the median time with
min-max over the rounds' medians, and the median answer's bytes and format.

    python3 bench/quality_costs.py [--darkroom .build/release/darkroom] [--rounds 3] [--set quality|faces]

The face set searches the corpus photos, which have no faces: the search
costs the same whether it finds any, and object gravity then falls back to
smart gravity, so `g:obj` against `g:sm` is the search's own cost.
"""
import argparse
import http.client
import os
import statistics
import subprocess
import time

from processes import free_port
from rounds import cell, ordered

ACCEPT = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"
# Each set: its resize, then (name, options); the first is the baseline.
SETS = {
    "quality": ("rs:fit:512:512", "one WebP encode", [
        ("WebP q79 (one encode)", "f:webp"),
        ("AVIF q63 (one encode)", "f:avif"),
        ("f:best (AVIF, WebP, JPEG tried)", "f:best"),
        ("aq:dssim 0.02, WebP 70-80", "f:webp/aq:dssim:0.02:70:80:0.001"),
        ("aq:size 20000, WebP 10-90", "f:webp/aq:size:20000:10:90"),
    ]),
    "faces": ("rs:fill:400:400", "smart gravity", [
        ("g:sm (libvips' attention)", "g:sm/f:jpg"),
        ("g:obj (face search, then g:sm)", "g:obj/f:jpg"),
        ("g:ce, libvips path (sharpen 0.01)", "sh:0.01/f:jpg"),
        ("bd:10 (face search, nothing to blur)", "bd:10/f:jpg"),
        ("dd:1 (face search, nothing to draw)", "dd:1/f:jpg"),
    ]),
}
PHOTOS = ["Blinds.jpg", "Dune.jpg", "Garden.jpg", "Storm.jpg"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--darkroom", default=".build/release/darkroom")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--set", choices=sorted(SETS), default="quality")
    args = parser.parse_args()
    resize, baseline, variants = SETS[args.set]
    corpus = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus")
    port = free_port()
    server = subprocess.Popen([args.darkroom, "serve", "--port", str(port), "--local-root", corpus,
                               "--memory-cache-mb", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/health")
                break
            except OSError:
                time.sleep(0.05)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        counter = 0

        def ask(options, photo):
            nonlocal counter
            counter += 1
            path = f"/img/_/{resize}/bg:{counter // 256}:{counter % 256}:7/{options}/plain/local:///photos/{photo}"
            start = time.perf_counter()
            connection.request("GET", path, headers={"Accept": ACCEPT})
            response = connection.getresponse()
            body = response.read()
            elapsed = time.perf_counter() - start
            if response.status != 200:
                raise SystemExit(f"{path}: {response.status} {body[:200]!r}")
            return elapsed, len(body), response.getheader("Content-Type")

        for name, options in variants:   # warm-up: libvips, the codecs, the page cache
            ask(options, PHOTOS[0])
        medians = {name: [] for name, _ in variants}
        answers = {name: [] for name, _ in variants}
        for round_index in range(args.rounds):
            for name, options in ordered(variants, round_index):
                times = []
                for photo in PHOTOS:
                    elapsed, size, kind = ask(options, photo)
                    times.append(elapsed)
                    answers[name].append((size, kind))
                medians[name].append(statistics.median(times))
        base = statistics.median(medians[variants[0][0]])
        print(f"| {len(PHOTOS)} photos, {resize}, one client | time, ms (median, min-max of {args.rounds} rounds) | vs {baseline} | median bytes | formats |")
        print("|---|---|---|---|---|")
        for name, _ in variants:
            values = medians[name]
            sizes = sorted(size for size, _ in answers[name])
            kinds = sorted({kind.split("/")[-1] for _, kind in answers[name]})
            print(f"| {name} | {cell([v * 1000 for v in values], 0)} "
                  f"| {statistics.median(values) / base:.2f}x | {sizes[len(sizes) // 2]:,} | {', '.join(kinds)} |")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
