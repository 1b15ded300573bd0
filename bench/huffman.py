"""What Huffman optimisation costs a JPEG answer and what it saves: each
corpus photo made into the servers' benchmark answer (512 px, quality 80,
4:2:0) once, then written with libjpeg-turbo's standard tables and with
tables made for the image (`optimize_coding`), one thread, the two in
alternating order, CPU time per write. The medians over the rounds are
per image; the bytes are the answers' sizes.

Usage: .venv/bin/python bench/huffman.py [--rounds 30]
"""
import argparse
import os
import statistics
import subprocess
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import pyvips  # noqa: E402

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "corpus", "photos")
SIZE, QUALITY = 512, 80


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--corpus", default=CORPUS)
    args = parser.parse_args()
    pyvips.cache_set_max(0)
    names = sorted(n for n in os.listdir(args.corpus) if n.lower().endswith(".jpg"))
    # The pixels in memory, so that only the write is timed.
    images = [pyvips.Image.thumbnail(os.path.join(args.corpus, n), SIZE).copy_memory() for n in names]
    times = {False: [], True: []}
    sizes = {False: 0, True: 0}
    for round_ in range(args.rounds):
        for optimise in ((False, True) if round_ % 2 == 0 else (True, False)):
            started = time.process_time()
            total = 0
            for image in images:
                total += len(image.jpegsave_buffer(Q=QUALITY, optimize_coding=optimise, strip=True))
            times[optimise].append((time.process_time() - started) / len(images) * 1000)
            sizes[optimise] = total
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"{time.strftime('%Y-%m-%d')}, commit {commit}, libvips {pyvips.version(0)}.{pyvips.version(1)}: "
          f"bench/huffman.py --rounds {args.rounds}; {len(images)} photos at {SIZE} px, quality {QUALITY}")
    print("| tables | CPU ms a write, median (min-max) | bytes, all photos |")
    print("|---|---|---|")
    for optimise in (False, True):
        t = times[optimise]
        print(f"| {'made for the image' if optimise else 'the standard'} | {statistics.median(t):.2f} ({min(t):.2f}-{max(t):.2f}) "
              f"| {sizes[optimise]:,} |")
    extra = statistics.median(times[True]) - statistics.median(times[False])
    print(f"optimising costs {extra:.2f} ms a write and saves {1 - sizes[True] / sizes[False]:.1%} of the bytes")


if __name__ == "__main__":
    main()
