#!/usr/bin/env python3
"""`darkroom fetch` over a 500-row list: first run, then the cached second run.

A local origin serves the corpus photos with 50 ms of added latency per
request. Each row names a photo under its own query string, so every row is
its own download. Prints wall time, CPU use (user + system over wall, so 2.0
means both cores busy), rows per second and peak resident memory for each
run, and the ratio. Peak memory against --rows shows whether fetch holds a
window of work or every row's bytes at once.

    python3 bench/fetch.py [--darkroom PATH] [--rows N]
"""
import argparse
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.environ.get("DARKROOM_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))


class SlowHandler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=CORPUS, **kwargs)

    def do_GET(self):
        time.sleep(0.05)
        self.path = self.path.split("?", 1)[0]
        super().do_GET()

    def log_message(self, *args):
        pass


def timed_run(command):
    """Wall time, CPU seconds, peak RSS (MiB), the JSON rows and the exit code."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    output = process.stdout.read()
    # wait4 gives this child's own usage (RUSAGE_CHILDREN keeps the largest
    # peak of all children so far).
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime
    rows = [json.loads(line) for line in output.splitlines() if line.strip()]
    return wall, cpu, usage.ru_maxrss / 1024, rows, process.returncode


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--darkroom", default=os.path.join(ROOT, ".build", "release", "darkroom"))
    parser.add_argument("--rows", type=int, default=500)
    args = parser.parse_args()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    photos = sorted(f for f in os.listdir(os.path.join(CORPUS, "photos")) if f.endswith(".jpg"))
    scratch = tempfile.mkdtemp(prefix="darkroom-fetch-bench-")
    try:
        entries = [{"name": f"row {i:05d} {photos[i % len(photos)]}",
                    "url": f"http://127.0.0.1:{port}/photos/{photos[i % len(photos)]}?row={i}"}
                   for i in range(args.rows)]
        listfile = os.path.join(scratch, "list.json")
        with open(listfile, "w") as f:
            json.dump(entries, f)
        command = [args.darkroom, "fetch", listfile, "--out", os.path.join(scratch, "out"),
                   "--cache-dir", os.path.join(scratch, "cache"), "--json"]
        print(f"darkroom fetch: {args.rows} rows of corpus photos (full size, sepia 0.8, JPEG q85), "
              f"origin with 50 ms latency per request, 2 cores")
        runs = []
        for label in ("first run (network)", "second run (cached)"):
            wall, cpu, peak, rows, code = timed_run(command)
            filtered = sum(1 for r in rows if r.get("state") == "filtered")
            runs.append(wall)
            print(f"  {label:20s} wall {wall:7.2f} s   CPU {cpu:7.2f} s   CPU use {cpu / wall:4.2f} cores   "
                  f"{args.rows / wall:8.1f} rows/s   peak RSS {peak:6.0f} MiB   ({filtered} filtered, exit {code})")
        print(f"  second run / first run speed: {runs[0] / runs[1]:.1f}x")
    finally:
        server.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
