#!/usr/bin/env python3
"""`darkroom book`: wall time with 1 and 2 page workers, and peak memory.

48 corpus photos (the 12, four times) into an A4 book at 150 DPI, with 1
and with 2 workers, interleaved, best of two; then peak resident memory for
48 and for 480 photos. Prints the figures and the ratios.

    python3 bench/book.py [--darkroom PATH]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.environ.get("DARKROOM_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))


def photos(count):
    folder = os.path.join(CORPUS, "photos")
    names = sorted(f for f in os.listdir(folder) if f.endswith(".jpg"))
    return [os.path.join(folder, names[i % len(names)]) for i in range(count)]


def run(binary, count, workers, out):
    command = [binary, "book", *photos(count), "-o", out, "--page", "A4", "--dpi", "150", "--workers", str(workers)]
    # A fresh interpreter per run, so ru_maxrss of children is this run's own.
    code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
            "subprocess.run(sys.argv[1:],check=True,stdout=subprocess.DEVNULL);"
            "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    wall, rss = subprocess.run([sys.executable, "-c", code, *command], check=True, capture_output=True, text=True).stdout.split()
    return float(wall), int(rss)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--darkroom", default=os.path.join(ROOT, ".build", "release", "darkroom"))
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="darkroom-book-bench-")
    try:
        out = os.path.join(scratch, "book.pdf")
        best = {1: float("inf"), 2: float("inf")}
        for _ in range(2):
            for workers in (1, 2):
                wall, _ = run(args.darkroom, 48, workers, out)
                best[workers] = min(best[workers], wall)
        print("darkroom book: 48 corpus photos, A4 at 150 DPI (1240 x 1754 pages), best of 2, interleaved")
        print(f"  1 worker   {best[1]:6.2f} s   {48 / best[1]:5.1f} pages/s")
        print(f"  2 workers  {best[2]:6.2f} s   {48 / best[2]:5.1f} pages/s")
        print(f"  speed-up with 2 workers: {best[1] / best[2]:.2f}x")
        peaks = {}
        for count in (48, 480):
            _, peaks[count] = run(args.darkroom, count, 2, out)
            print(f"  peak memory, {count:3d} photos: {peaks[count] / 1024:6.1f} MiB   (PDF {os.path.getsize(out) / 1e6:.1f} MB)")
        print(f"  memory ratio 480 / 48: {peaks[480] / peaks[48]:.2f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
