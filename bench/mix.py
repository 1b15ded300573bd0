"""The realistic mix: one fixed sequence of requests, some answered from a
cache and some not, as a site's image traffic is.

The URLs: the corpus photos, each under 20 source paths (as a site has
many photos; a path is a distinct source to every server), x 4 sizes (fit
160, 320, 640, 1024) x 3 formats chosen by Accept (Chromium's, which takes
AVIF; one that takes WebP and not AVIF; `*/*`, which gets JPEG): 2,880
answers. Popularity is Zipf with exponent 1.0 over a seeded shuffle of
them: the classic Zipf law, the usual figure in web and CDN cache models
(proxy traces have measured 0.64 to 0.83, Breslau et al. 1999, a heavier
tail and fewer hits). A seeded sequence of 20,000 requests is drawn once,
written into wrk's Lua script, and every contender gets the same one: the
first quarter warms the caches, the rest is measured. With this many URLs
the measured hit ratio settles near 93% and misses go on arriving from the
tail, as they do in front of a real site; the hit ratio of the measured
window's two halves shows how steady it is.

Contenders, each fresh every round (empty caches): darkroom serve with its
defaults (disk cache, memory cache), which counts its hits on /metrics;
and thumbor, one process and one per core, each behind nginx's proxy_cache
(nginx picks the format from Accept and keys the cache on it), whose
access log says HIT or MISS. Per round, the contenders' order alternates.
"""
import os
import random
import re
import signal
import subprocess
import threading
import time

import peers
from answers import fetch
from load import lua_headers, lua_string, parse_wrk
from peers import ACCEPT_CHROMIUM, ACCEPT_WEBP, CORES, QUALITY
from processes import wait_for_quiet
from report import mix_target, table
from rounds import Failed, Rounds, ordered, show

REQUESTS = 20000
WARMUP = 0.25
VERSIONS = 20
SIZES = (160, 320, 640, 1024)
ACCEPTS = (ACCEPT_CHROMIUM, ACCEPT_WEBP, "*/*")
EXPONENT = 1.0
SEED = 36
CONNECTIONS = 16
LIMIT = 900     # seconds a part may take before the run counts as failed

SCRIPT = """
local paths = {%(paths)s}
local accept = {%(accept)s}
local headers = {%(headers)s}
local sequence = {%(sequence)s}
local threads = %(threads)d
local started = 0
function setup(thread)
  thread:set("offset", started)
  started = started + 1
end
local k, answered, share = 0, 0, 0
function init(args)
  share = math.floor((#sequence - offset + threads - 1) / threads)
end
function request()
  -- Thread t takes requests t, t + threads, ...: together, the sequence.
  local i = (offset + k * threads) %% #sequence + 1
  k = k + 1
  local u = sequence[i]
  return wrk.format("GET", paths[u], headers[accept[u]])
end
function response(status, hdrs, body)
  answered = answered + 1
  if answered == share then
    -- wrk waits out its duration whatever its threads do: say so, and
    -- the caller interrupts it.
    io.write("mix: thread done\\n")
    io.flush()
    wrk.thread:stop()
  end
end
"""


def universe(photos):
    return [(version, photo, size, accept) for version in range(VERSIONS) for photo in photos
            for size in SIZES for accept in range(len(ACCEPTS))]


def sequence(count, size):
    rng = random.Random(SEED)
    ranks = list(range(size))
    rng.shuffle(ranks)      # which URL is the most popular, the second, ...
    weights = [1 / (rank + 1) ** EXPONENT for rank in ranks]
    return rng.choices(range(size), weights=weights, k=count)


def darkroom_path(o, version, photo, size):
    return (f"/img/_/rs:fit:{size}:{size}/fq:jpg:{QUALITY['jpeg']}:webp:{QUALITY['webp']}:avif:{QUALITY['avif']}"
            f"/plain/http://{o}/c/v{version}/{photo}")


def thumbor_path(o, version, photo, size):
    return f"/t/{size}/c/v{version}/{photo}"


def script(scratch, paths, items, part):
    path = os.path.join(scratch, f"mix-{random.getrandbits(40):x}.lua")
    with open(path, "w") as f:
        f.write(SCRIPT % {"paths": ", ".join(lua_string(p) for p in paths),
                          "accept": ", ".join(str(item[3] + 1) for item in items),
                          "headers": ", ".join("{" + lua_headers({"Accept": a}) + "}" for a in ACCEPTS),
                          "sequence": ", ".join(str(u + 1) for u in part), "threads": 2})
    return path


def play(port, lua, expected):
    """Runs one part of the sequence; wrk is interrupted (SIGINT: it then
    reports, with the time actually taken) once both threads are done."""
    wrk = subprocess.Popen(["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{LIMIT}s", "--latency", "--timeout", "60s", "-s", lua,
                            f"http://127.0.0.1:{port}/"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, done = [], 0
    for line in wrk.stdout:
        lines.append(line)
        if line.startswith("mix: thread done"):
            done += 1
            if done == 2:
                wrk.send_signal(signal.SIGINT)
                break
    lines += wrk.stdout.readlines()
    wrk.wait()
    figures = parse_wrk("".join(lines))
    if not figures["failed"] and figures["requests"] < expected * 0.99:
        figures["failed"] = f"{figures['requests']} of {expected} requests in {LIMIT} s"
    return figures


def darkroom_counts(port):
    """(hits, answers) so far, from darkroom's cache counters."""
    status, body = fetch(port, "/metrics")
    counts = {}
    for kind, cache, value in re.findall(r'darkroom_cache_(hits|misses)_total\{cache="(\w+)"\} ([\d.e+]+)', body.decode()):
        counts[(kind, cache)] = float(value)
    memory = counts.get(("hits", "memory"), 0)
    return memory + counts.get(("hits", "disk"), 0), memory + counts.get(("misses", "memory"), 0)


class Sampler:
    """darkroom's counters every half second while a part runs."""

    def __init__(self, port):
        self.port, self.samples, self.stop = port, [], threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while True:
            self.samples.append((time.time(), *darkroom_counts(self.port)))
            if self.stop.wait(0.5):
                self.samples.append((time.time(), *darkroom_counts(self.port)))
                return


def ratio_between(samples, t0, t1):
    """Hit ratio between two moments, from cumulative (time, hits, answers)."""
    def at(t):
        return min(samples, key=lambda s: abs(s[0] - t))
    a, b = at(t0), at(t1)
    return (b[1] - a[1]) / (b[2] - a[2]) if b[2] > a[2] else None


def nginx_ratio(log, t0, t1):
    lines = [line.split() for line in open(log) if line.strip()]
    statuses = [s for t, s in lines if t0 <= float(t) <= t1]
    return sum(s == "HIT" for s in statuses) / len(statuses) if statuses else None


def one(kind, server, paths, items, seq, scratch):
    """Warm-up, then the measured part; figures with hit ratios."""
    cut = int(len(seq) * WARMUP)
    warm = play(server.port, script(scratch, paths, items, seq[:cut]), cut)
    if warm["failed"]:
        return {"failed": f"warm-up: {warm['failed']}"}
    sampler = Sampler(server.port) if kind == "darkroom" else None
    if sampler:
        sampler.thread.start()
    t0 = time.time()
    figures = play(server.port, script(scratch, paths, items, seq[cut:]), len(seq) - cut)
    t1 = time.time()
    if sampler:
        sampler.stop.set()
        sampler.thread.join()
        ratio = lambda a, b: ratio_between(sampler.samples, a, b)
    else:
        time.sleep(1.5)     # the access log's flush
        log = os.path.join(server.folder, "cache.log")
        ratio = lambda a, b: nginx_ratio(log, a, b)
    middle = (t0 + t1) / 2
    figures.update({"hits": ratio(t0, t1), "first half": ratio(t0, middle), "second half": ratio(middle, t1)})
    return figures


def run(args, scratch, o, sets):
    photos = sets["jpeg"]
    items = universe(photos)
    seq = sequence(args.mix_requests, len(items))
    paths = {"darkroom": [darkroom_path(o, *item[:3]) for item in items],
             "thumbor": [thumbor_path(o, *item[:3]) for item in items]}
    thumbors = {f"thumbor x{n} + nginx cache": peers.thumbor(scratch, n) for n in dict.fromkeys((1, CORES))}
    names = ["darkroom"] + list(thumbors)
    print(f"mix: {len(items)} URLs, {len(seq)} requests (Zipf {EXPONENT}, seed {SEED}), the first {WARMUP:.0%} to warm up; "
          f"{args.rounds} rounds", flush=True)
    results, live = Rounds(), list(thumbors.values())
    try:
        for index in range(args.rounds):
            results.start_round()
            for name in ordered(names, index):
                if name == "darkroom":
                    server = peers.darkroom(args.darkroom, scratch)
                else:
                    server = peers.thumbor_cache(scratch, f"cache-{index}-{name.split()[1]}", thumbors[name].port, o)
                live.append(server)
                try:
                    wait_for_quiet(live)
                    figures = one("darkroom" if name == "darkroom" else "nginx", server,
                                  paths["darkroom" if name == "darkroom" else "thumbor"], items, seq, scratch)
                finally:
                    server.stop()
                    live.remove(server)
                if figures.get("failed"):
                    results.add(name, "mix", Failed(figures["failed"]))
                    print(f"  {name:26s} mix FAILED: {figures['failed']}", flush=True)
                    continue
                results.add(name, "mix", figures)
                print(f"  {name:26s} mix {figures['rate']:8.1f} req/s  p50 {figures['p50']:.1f} ms  p99 {figures['p99']:.1f} ms"
                      f"  hits {percent(figures['hits'])} (halves {percent(figures['first half'])}, "
                      f"{percent(figures['second half'])})", flush=True)
    finally:
        for server in thumbors.values():
            server.stop()
    results.stronger("thumbor", list(thumbors), "mix")
    text = report(results, names)
    print(text)
    return text, results


def percent(value):
    return "-" if value is None else f"{value:.1%}"


def report(results, names):
    def hits(name, key):
        return show([v if isinstance(v, Failed) else v * 100 for v in results.series(name, "mix", key)], 1)

    rows = []
    for name in names:
        rows.append([name, show(results.series(name, "mix")), show(results.series(name, "mix", "p50"), 1),
                     show(results.series(name, "mix", "p99"), 1), hits(name, "hits"),
                     hits(name, "first half") + " / " + hits(name, "second half")])
    out = [f"The mix ({len(results.rounds)} rounds; median (min-max)): throughput, client latency and hit ratio over "
           "the measured part:", ""]
    out += table(["contender", "req/s", "p50 ms", "p99 ms", "hit %", "hit %, first / second half"], rows)
    figures, met = mix_target(results)
    out += ["", f"darkroom / thumbor behind nginx's cache (the stronger in each round): {figures}",
            f"Target 5 (>= 3x the throughput at a p99 no higher): {'met' if met else '**not met**'}"]
    return "\n".join(out) + "\n"
