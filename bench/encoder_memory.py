"""Encoders' memory on the worst picture, through the server: noise (every
pixel random, which no encoder can predict) written in every output format
by every path that reaches an encoder with the source's whole size:

- `url`: `rs:fit:0:0` in the URL (no resize: the whole source);
- `hints`: no size in the URL, the width from `Sec-CH-Width` and a pixel
  ratio of 1 (`--client-hints`);
- `best`: `f:best`, which writes the image in each candidate format and
  keeps the smallest, with an `Accept` that names AVIF and WebP (without
  it, the only candidate for a photo is JPEG).

Each case runs on a server of its own, started fresh, with a budget large
enough that nothing is refused (the figures are what the encoders hold, not
what the budget lets through), so the peak belongs to that one answer. The
server's rise is its peak resident size (VmHWM, reset after a warm-up
request) over its size before; its children's is the largest sum of their
resident sizes, sampled every 10 ms. Bytes a pixel are both together over
the answer's pixels.

Usage: python3 bench/encoder_memory.py BINARY [--sides 2048,3000] [--formats ...]
"""
import argparse
import http.client
import os
import random
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from processes import FolderOrigin, free_port, tree, wait_for  # noqa: E402

FORMATS = ["jpg", "png", "webp", "avif", "heic", "gif", "tiff", "bmp"]


def noise_png(path, side, seed):
    """An RGB PNG of random pixels, written with zlib alone (stored
    blocks would be as large; level 1 is quick)."""
    rng = random.Random(seed)
    rows = b"".join(b"\x00" + rng.randbytes(side * 3) for _ in range(side))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class ChildSampler:
    """The largest sum of the server's children's resident sizes."""

    def __init__(self, pid):
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            total = 0
            for p in tree(self.pid)[1:]:
                try:
                    total += status_kib(p, "VmRSS")
                except OSError:
                    pass
            self.peak = max(self.peak, total)
            self._stop.wait(0.01)

    def stop(self):
        self._stop.set()
        self._thread.join()


def get(port, path, headers=None, timeout=300):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("Content-Type", ""), body


def one(binary, scratch, origin, name, side, fmt, path):
    port = free_port()
    cache = tempfile.mkdtemp(dir=scratch, prefix="cache-")
    command = [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--allow-private-networks",
               "--cache-dir", cache, "--memory-cache-mb", "16", "--max-request-memory-mb", "8192",
               "--max-processing-seconds", "300", "--max-result-dimension", "8192", "--client-hints"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env=dict(os.environ, LOG_LEVEL="error"))
    try:
        wait_for(port, "/health")
        source = f"http://127.0.0.1:{origin.port}/{name}"
        # Warm: the libraries loaded, the first buffers made.
        get(port, f"/img/_/rs:fit:64:64/plain/{source}@png")
        with open(f"/proc/{server.pid}/clear_refs", "w") as f:
            f.write("5")
        before = status_kib(server.pid, "VmRSS")
        if path == "url":
            url, headers = f"/img/_/rs:fit:0:0/plain/{source}@{fmt}", {}
        elif path == "hints":
            url, headers = f"/img/_/plain/{source}@{fmt}", {"Sec-CH-Width": str(side), "Sec-CH-DPR": "1"}
        else:
            url, headers = f"/img/_/rs:fit:0:0/f:best/plain/{source}", {"Accept": "image/avif,image/webp,*/*"}
        sampler = ChildSampler(server.pid)
        started = time.time()
        status, kind, body = get(port, url, headers)
        took = time.time() - started
        sampler.stop()
        rise = max(0, status_kib(server.pid, "VmHWM") - before)
        return status, kind, len(body), took, rise, sampler.peak
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--sides", default="2048,3000")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--paths", default="url,hints,best")
    args = parser.parse_args()
    sides = [int(s) for s in args.sides.split(",")]
    formats = args.formats.split(",")
    paths = args.paths.split(",")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"{time.strftime('%Y-%m-%d')}, commit {commit}: python3 bench/encoder_memory.py {binary_name(args.binary)} "
          f"--sides {args.sides} --formats {args.formats} --paths {args.paths}")
    with tempfile.TemporaryDirectory(prefix="encoder-memory-") as scratch:
        sources = os.path.join(scratch, "sources")
        os.mkdir(sources)
        for side in sides:
            noise_png(os.path.join(sources, f"noise-{side}.png"), side, side)
        origin = FolderOrigin(sources)
        print("| Side | Path | Answer | Status | Bytes | Seconds | Server rise (MiB) | Children (MiB) | Bytes a pixel |")
        print("|---|---|---|---|---|---|---|---|---|")
        for side in sides:
            for path in paths:
                for fmt in (formats if path != "best" else ["best"]):
                    status, kind, size, took, rise, children = one(args.binary, scratch, origin, f"noise-{side}.png", side, fmt, path)
                    per_pixel = (rise + children) * 1024 / (side * side)
                    answer = kind.split("/")[-1] if status == 200 else fmt
                    print(f"| {side} | {path} | {answer} | {status} | {size:,} | {took:.1f} | {rise / 1024:.0f} | "
                          f"{children / 1024:.0f} | {per_pixel:.1f} |", flush=True)


def binary_name(path):
    return os.path.relpath(path) if os.path.isabs(path) and path.startswith(os.getcwd()) else path


if __name__ == "__main__":
    main()
