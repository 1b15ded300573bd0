#!/usr/bin/env python3
"""The shared result cache: a replica answering from S3 versus making the
image from scratch, and what a miss pays to also write to S3.

SeaweedFS (from .venv) is the store; an nginx origin serves the corpus
photos. Three `darkroom serve` replicas (release): S without a shared cache,
A and B with `--result-cache s3://bench/cache`. Each phase asks for a list
of source URLs no replica has seen, every URL once, from 16 clients on
keep-alive connections (Python threads: the same driver for every phase):

1. S makes list 1 from scratch;
2. A makes list 2 from scratch and writes each result to S3;
3. B answers list 2: every answer is an S3 hit (checked in B's metrics:
   nothing processed, nothing downloaded).

Fit into 512 x 512, JPEG q80, as bench/servers.py. Prints requests/s and
p99 for each phase and the ratios; with --write, appends them to
docs/benchmarks.md.

    .venv/bin/python bench/shared_cache.py [--darkroom PATH] [--rows N] [--write]
"""
import argparse
import datetime
import hashlib
import json
import os
import http.client
import re
import threading
import subprocess
import tempfile
import time
import urllib.request

from load import percentile
from peers import CORES, ROOT, darkroom, nginx
from processes import Server, free_port, wait_for_quiet
from report import machine
from sources import CORPUS

ACCESS, SECRET = "bench", "bench-secret"

def seaweedfs(scratch):
    """One `weed server` with an S3 gateway on loopback; returns it and its S3 port."""
    data = os.path.join(scratch, "seaweedfs")
    os.makedirs(data)
    config = os.path.join(scratch, "s3.json")
    with open(config, "w") as f:
        json.dump({"identities": [{"name": "bench", "credentials": [{"accessKey": ACCESS, "secretKey": SECRET}],
                                   "actions": ["Admin", "Read", "Write", "List"]}]}, f)
    ports = [free_port() for _ in range(8)]
    command = [os.path.join(ROOT, ".venv", "bin", "weed"), "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-dir={data}",
               f"-master.port={ports[0]}", f"-master.port.grpc={ports[1]}", "-master.telemetry=false",
               f"-volume.port={ports[2]}", f"-volume.port.grpc={ports[3]}",
               "-filer", f"-filer.port={ports[4]}", f"-filer.port.grpc={ports[5]}",
               "-s3", f"-s3.port={ports[6]}", f"-s3.port.grpc={ports[7]}", "-s3.port.iceberg=0", "-s3.port.lance=0",
               f"-s3.config={config}"]
    # Ready once it accepts the bucket (see main).
    return Server("seaweedfs", command, ports[6], ready=None), ports[6]


def s3(port, method, path, data=None):
    """A signed request with curl's own Signature Version 4; returns the status."""
    body = (data or "").encode()
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, "--aws-sigv4", "aws:amz:us-east-1:s3",
               "--user", f"{ACCESS}:{SECRET}", "-H", f"x-amz-content-sha256: {hashlib.sha256(body).hexdigest()}",
               f"http://127.0.0.1:{port}{path}"]
    if data is not None:
        command[1:1] = ["--data-binary", data, "-H", "Content-Type: application/octet-stream"]
    return subprocess.run(command, capture_output=True, text=True).stdout


def cpu_seconds(pid):
    """User + system CPU time a process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def metric(port, name):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name))


def run_list(port, urls, scratch, quiet=()):
    """Every URL once, 16 clients on keep-alive connections; requests/s over
    the whole list and p99 (ms). (wrk cannot stop after a list: its rate
    always counts its whole duration.) `quiet`: servers whose work from the
    phase before must end first."""
    wait_for_quiet(list(quiet))
    pending = list(reversed(urls))
    lock = threading.Lock()
    latencies, failures = [], [0]

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            with lock:
                if not pending:
                    break
                url = pending.pop()
            began = time.perf_counter()
            connection.request("GET", url)
            answer = connection.getresponse()
            answer.read()
            elapsed = time.perf_counter() - began
            with lock:
                latencies.append(elapsed)
                if answer.status != 200:
                    failures[0] += 1
        connection.close()

    began = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    return {"rate": len(latencies) / wall, "p99": 1000 * percentile(latencies, 99), "requests": len(latencies),
            "non2xx": failures[0]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--darkroom", default=os.path.join(ROOT, ".build", "release", "darkroom"))
    parser.add_argument("--rows", type=int, default=600, help="URLs per phase")
    parser.add_argument("--write", action="store_true", help="append the figures to docs/benchmarks.md")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="darkroom-shared-bench-")
    photos = sorted(f for f in os.listdir(os.path.join(CORPUS, "photos")) if f.endswith(".jpg"))
    started = []
    try:
        origin = nginx("origin", scratch, f"location ~ ^/c/[^/]+/(.+)$ {{ alias {os.path.join(CORPUS, 'photos')}/$1; }}\n")
        started.append(origin)
        store, s3_port = seaweedfs(scratch)
        started.append(store)
        deadline = time.time() + 60
        while s3(s3_port, "PUT", "/bench") not in ("200", "409") or s3(s3_port, "PUT", "/bench/warm-up", "x") != "200":
            if time.time() > deadline:
                raise SystemExit("SeaweedFS did not accept the bucket")
            time.sleep(0.3)

        shared = ["--result-cache", "s3://bench/cache", "--s3-endpoint", f"http://127.0.0.1:{s3_port}", "--memory-cache-mb", "64"]
        # peers.darkroom passes the environment on: the replicas' S3 keys.
        os.environ.update(AWS_ACCESS_KEY_ID=ACCESS, AWS_SECRET_ACCESS_KEY=SECRET)
        plain = darkroom(args.darkroom, scratch, ["--memory-cache-mb", "64"])
        started.append(plain)
        a = darkroom(args.darkroom, scratch, shared)
        started.append(a)
        b = darkroom(args.darkroom, scratch, shared)
        started.append(b)

        def urls(tag):
            return [f"/img/_/rs:fit:512:512/q:80/plain/http://127.0.0.1:{origin.port}/c/{tag}{i}/{photos[i % len(photos)]}@jpg"
                    for i in range(args.rows)]

        scratch_run = run_list(plain.port, urls("s"), scratch, started)
        list2 = urls("a")
        store_cpu = cpu_seconds(store.process.pid)
        a_cpu = cpu_seconds(a.pid)
        miss_run = run_list(a.port, list2, scratch, started)
        store_cpu = cpu_seconds(store.process.pid) - store_cpu
        a_cpu = cpu_seconds(a.pid) - a_cpu
        miss_wall = miss_run["requests"] / miss_run["rate"]
        deadline = time.time() + 120
        while metric(a.port, "darkroom_s3_stores_total") < args.rows and time.time() < deadline:
            time.sleep(0.2)
        stored = metric(a.port, "darkroom_s3_stores_total")
        hit_run = run_list(b.port, list2, scratch, started)
        b_processed = metric(b.port, 'darkroom_stage_duration_seconds_count{stage="process"}')
        b_downloads = metric(b.port, "darkroom_download_bytes_total")
        b_hits = metric(b.port, 'darkroom_cache_hits_total{cache="s3"}')
        put = {"count": metric(a.port, 'darkroom_s3_duration_seconds_count{operation="put"}'),
               "sum": metric(a.port, 'darkroom_s3_duration_seconds_sum{operation="put"}')}
        get = {"count": metric(b.port, 'darkroom_s3_duration_seconds_count{operation="get"}'),
               "sum": metric(b.port, 'darkroom_s3_duration_seconds_sum{operation="get"}')}
    finally:
        for server in reversed(started):
            server.stop()

    lines = [
        f"{args.rows} URLs per phase, each once, c=16, fit 512 x 512 JPEG q80; SeaweedFS on loopback, same machine.",
        "",
        "| phase | req/s | p99 ms | non-2xx |",
        "|---|---|---|---|",
        f"| S: from scratch, no shared cache | {scratch_run['rate']:.1f} | {scratch_run['p99']:.1f} | {scratch_run['non2xx']} |",
        f"| A: from scratch, and each result written to S3 | {miss_run['rate']:.1f} | {miss_run['p99']:.1f} | {miss_run['non2xx']} |",
        f"| B: the same URLs, answered from S3 | {hit_run['rate']:.1f} | {hit_run['p99']:.1f} | {hit_run['non2xx']} |",
        "",
        f"- B from S3 / from scratch: **{hit_run['rate'] / scratch_run['rate']:.1f}x** the rate; "
        f"p99 {hit_run['p99']:.1f} vs {scratch_run['p99']:.1f} ms.",
        f"- A miss that also writes to S3 / one that does not: {miss_run['rate'] / scratch_run['rate']:.2f}x the rate "
        f"(the PUT follows the answer; mean PUT {1000 * put['sum'] / max(put['count'], 1):.1f} ms over {int(put['count'])}).",
        f"- CPU during phase A ({miss_wall:.1f} s on {CORES} cores): replica A {a_cpu:.1f} s, "
        f"SeaweedFS {store_cpu:.1f} s (the store shares the cores here; on its own machine that part leaves).",
        f"- Mean S3 GET on B: {1000 * get['sum'] / max(get['count'], 1):.1f} ms over {int(get['count'])}.",
        f"- Checks: A stored {int(stored)} of {args.rows}; B: {int(b_hits)} S3 hits, {int(b_processed)} processed, "
        f"{int(b_downloads)} bytes downloaded.",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        header = (f"\n## Shared result cache (S3)\n\n`.venv/bin/python bench/shared_cache.py --rows {args.rows} --write`, "
                  f"{datetime.date.today().isoformat()}, commit {commit}, {machine()}.\n\n")
        with open(os.path.join(ROOT, "docs", "benchmarks.md"), "a") as f:
            f.write(header + text + "\n")


if __name__ == "__main__":
    main()
