#!/usr/bin/env python3
"""Image servers side by side, in one run, on loopback, in rounds.

Every server fits the source inside 512 x 512 and writes the answer the
workload names at imgproxy's default qualities, set explicitly on every
side: JPEG 80 (4:2:0, baseline), WebP 79, AVIF 63 (bench/peers.py lists the
encoder settings of each side). Contenders:

- darkroom serve (release), and optionally a second darkroom binary
  (--before) so that a change is measured against its parent in one run;
- thumbor 7.8 from PyPI, once with one process, once with a process per
  core (--processes), and as its documentation deploys it, a single-process
  thumbor per core behind nginx; each with an engine thread pool of one per
  core, no storage, no result storage; a ratio against "thumbor" takes the
  strongest of the three in that round. For Accept-negotiated answers thumbor runs with
  AUTO_WEBP, or with AUTO_AVIF where darkroom answers AVIF (Chromium's
  Accept); it reads HEIC through pillow-heif and AVIF through Pillow;
- nginx with Debian's image_filter module (libgd: it cannot shrink on load;
  JPEG only);
- nginx serving the very bytes darkroom answered, tuned (the hit limit);
- Pillow and pyvips in process, with the servers' encoder settings, one
  thread per core, no HTTP; Pillow's draft decode; and the floor of a cold
  JPEG answer (bench/jpeg_floor.c, compiled at run time: libjpeg-turbo's
  decode at the shrink-on-load scale and the 512-px write, one thread on
  one core), which darkroom's CPU time per answer is quoted against.

Each cold run also reads the CPU time (user and system, from /proc) of
each server's processes, its forked workers included, and quotes it per
answer beside the rate: a figure that holds on any machine and leaves out
wrk and the origin.

An nginx origin serves the corpus photos, 12 and 18 megapixel versions of
four, and PNG (adaptive row filters), WebP (lossy, lossless), AVIF and HEIC
versions. A cold request names a source URL no server has seen; a hit
repeats one URL. wrk drives each server at c=1 (the latency of a single
request), c=2 and c=16. A probe asks for a
cached image every 50 ms for at least 20 s (400 samples, so p99 is the
fifth largest) while 16 clients keep the cores busy with cold work.

Each round runs every workload on every contender, the contenders' order
reversed on odd rounds. Figures and ratios are the median with min-max
over the rounds (a ratio's over the per-round ratios). A wrk run with any
non-2xx answer or socket error is failed: reported so, never as a figure.
Before any ratio, one answer of each server per workload is read: a ratio
is quoted only where the format, pixel size, chroma subsampling and (for
JPEG) quantisation tables match darkroom's.

With --pin, every server runs on core 0 (taskset: its workers too; nginx's
static server with one worker) and wrk, the origin and the harness on core
1: CPU an answer and rates per core, free of the load generator, and with
a run without --pin, one core against two (bench/report.py --scaling).

After the rounds, a full run also plays the realistic mix (bench/mix.py),
with servers of its own, so that every target is measured in one run.

Every run writes its raw figures, round by round, as JSON (a full run under
bench/results/, to be committed; a shorter one in the temporary folder),
and the tables are rendered from that file (bench/report.py renders one
again).

    .venv/bin/python bench/servers.py [--darkroom PATH] [--before PATH] [--seconds N] [--rounds N] [--no-write]
    .venv/bin/python bench/servers.py --mix      (only the realistic mix: bench/mix.py)
    .venv/bin/python bench/servers.py --soak SECONDS     (only the long run)

A full run (3 or more rounds of 10 s or more, the mix's whole sequence,
without --no-write or --only) writes its tables, and the mix's, into
docs/benchmarks.md; shorter runs only print.
    .venv/bin/python bench/report.py bench/results/FILE.json [--write]   (renders a run again)
"""
import argparse
import collections
import contextlib
import datetime
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

import answers
import inprocess
import mix
import peers
from load import percentile, probe, wrk
from peers import ACCEPT_CHROMIUM, ACCEPT_WEBP, CORES, QUALITY, SIZE
import processes
from processes import RSSSampler, cpu_seconds, rss_kib, wait_for_quiet
from report import STRONGER, commit, machine, render, save_run, write_doc
from rounds import Failed, Rounds, ordered
from sources import make_sources

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE_SECONDS = 20      # 400 ticks of 50 ms
# answer: jpeg, webp, avif, or "accept" (negotiated from the Accept header).
Workload = collections.namedtuple("Workload", "name sources connections answer accept in_process")
WORKLOADS = [
    Workload("jpeg c=1", "jpeg", 1, "jpeg", None, False),
    Workload("webp answers c=1", "jpeg", 1, "webp", None, False),
    Workload("avif answers c=1", "jpeg", 1, "avif", None, False),
    Workload("jpeg c=2", "jpeg", 2, "jpeg", None, False),
    Workload("jpeg c=16", "jpeg", 16, "jpeg", None, True),
    Workload("png c=16", "png", 16, "jpeg", None, True),
    Workload("webp c=16", "webp", 16, "jpeg", None, True),
    Workload("webp lossless c=16", "webp-lossless", 16, "jpeg", None, True),
    Workload("avif c=16", "avif", 16, "jpeg", None, True),
    Workload("heic c=16", "heic", 16, "jpeg", None, True),
    Workload("webp answers c=16", "jpeg", 16, "webp", None, True),
    Workload("avif answers c=16", "jpeg", 16, "avif", None, True),
    Workload("accept webp c=16", "jpeg", 16, "accept", ACCEPT_WEBP, False),
    Workload("accept chromium c=16", "jpeg", 16, "accept", ACCEPT_CHROMIUM, False),
    # Last: the memory target reads its peak PSS from a server that has
    # served every other workload first, its caches full.
    Workload("large c=16", "large", 16, "jpeg", None, True),
]


def darkroom_template(o, answer):
    if answer == "accept":
        return f"/img/_/rs:fit:{SIZE}:{SIZE}/fq:jpg:{QUALITY['jpeg']}:webp:{QUALITY['webp']}:avif:{QUALITY['avif']}" \
               f"/plain/http://{o}/c/{{nonce}}/{{photo}}"
    ext = {"jpeg": "jpg"}.get(answer, answer)
    return f"/img/_/rs:fit:{SIZE}:{SIZE}/q:{QUALITY[answer]}/plain/http://{o}/c/{{nonce}}/{{photo}}@{ext}"


def thumbor_template(o, answer, quality=None):
    # Negotiated: no quality in the URL, so thumbor takes WEBP_QUALITY or
    # AVIF_QUALITY from its configuration (set to the same numbers).
    filters = "" if answer == "accept" else f"filters:quality({quality or QUALITY[answer]}):format({answer})/"
    return f"/unsafe/fit-in/{SIZE}x{SIZE}/{filters}{o}/c/{{nonce}}/{{photo}}"


class Run:
    def __init__(self, args, scratch, o, origin_dir, sets):
        self.args, self.scratch, self.o, self.origin_dir, self.sets = args, scratch, o, origin_dir, sets
        self.servers, self.results, self.fair = [], Rounds(), {}
        self.darkrooms = [("darkroom", args.darkroom)] + ([("darkroom before", args.before)] if args.before else [])
        self.thumbor_names = list(dict.fromkeys([f"thumbor x{n}" for n in (1, CORES)])) + [f"thumbor nginx x{CORES}"]
        # (peer, answer format) -> the quality asked of that peer, where the
        # same number made answers of other sizes (calibrate).
        self.quality, self.notes = {}, []

    def start(self, server):
        self.servers.append(server)
        return server

    def route(self, who, w):
        """(server, URL template, headers) for `who` on `w`, or None."""
        headers = {"Accept": w.accept} if w.accept else None
        if who in self.darkroom:
            return self.darkroom[who], darkroom_template(self.o, w.answer), headers
        if who in self.thumbor_names:
            negotiate = "avif" if w.accept == ACCEPT_CHROMIUM else "webp"
            return self.thumbor[(who, negotiate)], thumbor_template(self.o, w.answer, self.quality.get((who, w.answer))), headers
        if who == "nginx image_filter" and self.image_filter and w.answer == "jpeg" and w.sources in ("jpeg", "large"):
            return self.image_filter, "/if/c/{nonce}/{photo}", None
        return None

    def record(self, who, what, figures, unit="req/s"):
        if figures.get("failed"):
            self.results.add(who, what, Failed(figures["failed"]))
            print(f"  {who:20s} {what:18s} FAILED: {figures['failed']}", flush=True)
            return
        self.results.add(who, what, figures)
        extra = f"  p99 {figures['p99']:8.1f} ms" if "p99" in figures else ""
        extra += f"  peak RSS {figures['peak_rss']:.0f} MiB" if figures.get("peak_rss") else ""
        print(f"  {who:20s} {what:18s} {figures['rate']:8.1f} {unit}{extra}", flush=True)

    def cold(self, who, w, template=None, what=None):
        server, default, headers = self.route(who, w)
        wait_for_quiet(self.servers)
        measures = who in self.darkroom or who in self.thumbor_names
        spent = cpu_seconds(server.pids)
        with RSSSampler(server.pids) if measures else contextlib.nullcontext() as sampler:
            figures = wrk(server.port, w.connections, self.args.seconds, template=template or default,
                          photos=self.sets[w.sources], scratch=self.scratch, headers=headers)
        # The server's CPU over the run, per answer (the few requests still
        # in flight when wrk stops are counted in the time, not the answers:
        # a bias of c in thousands, the same on every side).
        spent = cpu_seconds(server.pids) - spent
        if figures.get("requests"):
            figures["cpu_ms"] = spent * 1000 / figures["requests"]
        if sampler:
            figures["peak_rss"], figures["peak_pss"] = sampler.peak_mib, sampler.peak_pss_mib
        self.record(who, what or w.name, figures)

    def setup(self):
        self.darkroom = {}
        for name, binary in self.darkrooms:
            extra = ["--memory-cache-mb", "64"] if peers.supports(binary, "--memory-cache-mb") else []
            print(f"{name}: {binary} {' '.join(extra)}")
            self.darkroom[name] = self.start(peers.darkroom(binary, self.scratch, extra))
        self.thumbor = {}
        for name in self.thumbor_names:
            for negotiate in ("webp", "avif"):
                if name.startswith("thumbor nginx"):
                    self.thumbor[(name, negotiate)] = self.start(peers.thumbor_behind_nginx(self.scratch, CORES, negotiate))
                else:
                    self.thumbor[(name, negotiate)] = self.start(peers.thumbor(self.scratch, int(name.split("x")[1]), negotiate))
        self.image_filter = self.start(peers.image_filter(self.scratch, self.o)) if os.path.exists(peers.IMAGE_FILTER) else None
        self.contenders = [n for n, _ in self.darkrooms] + self.thumbor_names + (["nginx image_filter"] if self.image_filter else [])
        self.workloads = [w for w in WORKLOADS if self.sets[w.sources] and (not self.args.only or w.name in self.args.only)]
        self.floor_binary = inprocess.build_jpeg_floor(self.scratch)

        # What each server answers, once, before anything is measured.
        for w in self.workloads:
            self.fair[w.name] = {}
            for who in self.contenders:
                route = self.route(who, w)
                if route:
                    server, template, headers = route
                    path = template.replace("{nonce}/{photo}", f"fair/{self.sets[w.sources][0]}")
                    self.fair[w.name][who] = answers.answer(server.port, path, headers)
                    if w.answer in ("webp", "avif") and who in self.thumbor_names and (who, w.answer) not in self.quality:
                        self.calibrate(who, w)
            print(f"  answers, {w.name}: " + "; ".join(f"{k}: {v['line']}" for k, v in self.fair[w.name].items()), flush=True)

        # A short run on every server that is not recorded: round 1 must not
        # pay for lazy starts (thumbor's forked workers, the AVIF encoders).
        for w in self.workloads:
            if w.name in ("jpeg c=16", "accept chromium c=16"):
                for who in self.contenders:
                    if self.route(who, w):
                        server, template, headers = self.route(who, w)
                        wait_for_quiet(self.servers)
                        wrk(server.port, 4, 2, template=template, photos=self.sets[w.sources], scratch=self.scratch,
                            headers=headers)

        # Hits: nginx serves the very bytes darkroom answered.
        self.warm_path = darkroom_template(self.o, "jpeg").replace("{nonce}/{photo}", "warm/Dune.jpg")
        folder = os.path.join(self.scratch, "static-files")
        os.makedirs(folder)
        for name, server in self.darkroom.items():
            status, body = answers.fetch(server.port, self.warm_path)
            if status != 200:
                raise SystemExit(f"{name} answered HTTP {status} for {self.warm_path}")
            if name == "darkroom":
                with open(os.path.join(folder, "warm.jpg"), "wb") as f:
                    f.write(body)
        self.static = self.start(peers.static(self.scratch, folder, workers=1 if self.args.pin else CORES))

    def calibrate(self, who, w):
        """Equal work for WebP and AVIF answers, where the encoders' quality
        scales differ: the quality whose answer for the benchmark's first
        photo comes within answers.SIZE_BAND of darkroom's bytes, found by
        bisection; the quality number is kept where it already does."""
        ours, theirs = self.fair[w.name].get("darkroom", {}), self.fair[w.name][who]
        if not ours.get("bytes") or answers.close_in_size(ours, theirs):
            self.quality[(who, w.answer)] = QUALITY[w.answer]
            return
        low, high, best = 1, 100, (QUALITY[w.answer], theirs)
        while low <= high:
            q = (low + high) // 2
            self.quality[(who, w.answer)] = q
            server, template, headers = self.route(who, w)
            got = answers.answer(server.port, template.replace("{nonce}/{photo}", f"fair-q{q}/{self.sets[w.sources][0]}"), headers)
            if not got.get("bytes"):
                break
            if abs(got["bytes"] - ours["bytes"]) < abs(best[1].get("bytes", 0) - ours["bytes"]):
                best = (q, got)
            if answers.close_in_size(ours, got):
                break
            low, high = (low, q - 1) if got["bytes"] > ours["bytes"] else (q + 1, high)
        self.quality[(who, w.answer)], self.fair[w.name][who] = best
        self.notes.append(f"{who} asked for {w.answer.upper()} at quality {best[0]} (darkroom: {QUALITY[w.answer]}): "
                          f"the quality whose answer has darkroom's bytes ({best[1].get('bytes', 0):,} against "
                          f"{ours['bytes']:,}), equal work judged by size, as the encoders' scales differ")

    def round(self, index):
        args, r = self.args, self.results
        r.start_round()
        print(f"round {index + 1} of {args.rounds}: {', '.join(ordered(self.contenders, index))}", flush=True)
        for w in self.workloads:
            for who in ordered(self.contenders, index):
                if self.route(who, w):
                    self.cold(who, w)
        if args.only:
            # Only the workloads named, each against its peers and in
            # process, and the hits if "hits" is named.
            self.in_process(index)
            if "hits" in args.only:
                self.hits(index)
            if "probe" in args.only:
                jpeg16 = next(w for w in WORKLOADS if w.name == "jpeg c=16")
                for name in ordered(self.darkroom, index):
                    self.probe(name, jpeg16)
            if "floor" in args.only:
                self.floors()
            return
        # Sepia's cost: the same request with and without it, back to back.
        jpeg16 = next(w for w in self.workloads if w.name == "jpeg c=16")
        for name in ordered(self.darkroom, index):
            sepia = darkroom_template(self.o, "jpeg").replace(f"/q:{QUALITY['jpeg']}/", f"/q:{QUALITY['jpeg']}/sepia:0.8/")
            self.cold(name, jpeg16, what="jpeg c=16 (paired)")
            self.cold(name, jpeg16, template=sepia, what="jpeg+sepia c=16")

        # In process, and the floor of a cold JPEG answer.
        self.floors()
        for sources in ("jpeg", "large"):
            self.record("Pillow draft decode", sources, self.measured(inprocess.in_process_subprocess(
                "draft", "jpeg", self.origin_dir, self.sets[sources], args.seconds)), "img/s")
        self.in_process(index)
        self.hits(index)

        # A cached image every 50 ms while 16 clients keep the cores busy.
        for name in ordered(self.darkroom, index):
            self.probe(name, jpeg16)

    def floors(self):
        wait_for_quiet(self.servers)
        for sources in ("jpeg", "large"):
            floor = inprocess.jpeg_floor(self.floor_binary, self.origin_dir, self.sets[sources])
            self.record("floor", sources, dict(floor, rate=1000 / floor["decode_encode_optimised"]) if floor
                        else self.measured(None), "img/s a core")

    def hits(self, index):
        # Hits: one URL again and again.
        for c in (2, 16):
            for name in ordered(list(self.darkroom) + ["nginx static"], index):
                server = self.static if name == "nginx static" else self.darkroom[name]
                path = "/static/warm.jpg" if name == "nginx static" else self.warm_path
                wait_for_quiet(self.servers)
                self.record(name, f"warm c={c}", wrk(server.port, c, self.args.seconds, path=path))

    def in_process(self, index):
        for w in self.workloads:
            if w.in_process:
                for kind in ordered(("pillow", "pyvips"), index):
                    self.record(kind, w.name, self.measured(inprocess.in_process_subprocess(
                        kind, w.answer, self.origin_dir, self.sets[w.sources], self.args.seconds)), "img/s")

    @staticmethod
    def measured(rate):
        return {"rate": rate, "failed": None if rate else "the run failed"}

    def probe(self, name, w):
        server = self.darkroom[name]
        seconds = max(self.args.seconds, PROBE_SECONDS)
        holder = {}
        wait_for_quiet(self.servers)
        loader = threading.Thread(target=lambda: holder.update(wrk(
            server.port, 16, seconds + 2, template=darkroom_template(self.o, "jpeg"), photos=self.sets["jpeg"],
            scratch=self.scratch)))
        loader.start()
        time.sleep(1)
        latencies, skipped = probe(server.port, self.warm_path, seconds)
        loader.join()
        figures = {"p50": percentile(latencies, 50), "p99": percentile(latencies, 99), "max": max(latencies),
                   "skipped": skipped, "count": len(latencies), "load_rate": holder.get("rate", 0),
                   "failed": holder.get("failed") and f"the load: {holder['failed']}"}
        if figures["failed"]:
            self.record(name, "probe", figures)
        else:
            self.results.add(name, "probe", figures)
            print(f"  {name:20s} {'probe under load':18s} p50 {figures['p50']:.2f} ms  p99 {figures['p99']:.2f} ms"
                  f"  max {figures['max']:.1f} ms  skipped {skipped} of {len(latencies) + skipped}", flush=True)
        loaded = rss_kib(server.pid) / 1024
        time.sleep(10)
        self.results.add(name, "rss after", {"loaded": loaded, "rested": rss_kib(server.pid) / 1024})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--darkroom", default=os.path.join(ROOT, ".build", "release", "darkroom"))
    parser.add_argument("--before", help="a second darkroom binary to measure in the same run")
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("BENCH_SECONDS", "15")), help="per wrk run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the contenders' order alternating (3)")
    parser.add_argument("--soak", type=int, help="only the long run: cold load for this many seconds")
    parser.add_argument("--mix", action="store_true", help="only the realistic mix (bench/mix.py)")
    parser.add_argument("--mix-requests", type=int, default=mix.REQUESTS, help="requests in the mix's sequence")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md as it is")
    parser.add_argument("--pin", action="store_true", help="servers on core 0, clients and the origin on core 1")
    parser.add_argument("--only", type=lambda text: [name.strip() for name in text.split(",")],
                        help="only these workloads, comma-separated (\"avif c=16,heic c=16\", and \"hits\" for the hits, \"probe\" for a cached image under cold load, \"mix\" for the realistic mix, \"floor\" for the JPEG floor); printed, not written")
    args = parser.parse_args()
    if not 1 <= args.rounds <= 20 or not 1 <= args.seconds <= 600:
        sys.exit("--rounds 1 to 20, --seconds 1 to 600")
    # A full run, and only one, is written: every part at its full length,
    # the mix's sequence included (a full run ends with it).
    # A pinned run has no mix (its servers are not pinned) and a section of its own.
    full = args.rounds >= 3 and args.seconds >= 10 and (args.pin or args.mix_requests >= mix.REQUESTS) and not args.no_write \
        and not args.only
    section = "servers-pinned" if args.pin else "servers"
    if args.only and not set(args.only) <= {w.name for w in WORKLOADS} | {"hits", "probe", "mix", "floor"}:
        sys.exit(f"--only: workloads are {', '.join(w.name for w in WORKLOADS)}, and hits, probe, mix, floor")
    if args.pin:
        if CORES < 2:
            sys.exit("--pin needs two cores")
        processes.PINNING.update(server="0", client="1")
        os.sched_setaffinity(0, {1})
    # Stopped with SIGTERM, the run still stops the servers it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    scratch = tempfile.mkdtemp(prefix="darkroom-servers-")
    os.chmod(scratch, 0o755)
    servers, notes = [], []
    try:
        origin_dir, sets = make_sources(scratch, notes, other_formats=not (args.soak or args.mix))
        origin = peers.origin(scratch, origin_dir)
        servers.append(origin)
        o = f"127.0.0.1:{origin.port}"
        if args.soak:
            return soak(args, scratch, o, sets)
        if args.mix:
            text, _ = mix.run(args, scratch, o, sets)
            if full:
                write_doc("mix", mix_heading(args) + text)
            return

        lines = [f"Machine: {machine()}", f"Date: {datetime.date.today()}", f"Commit: {commit()}",
                 f"Command: .venv/bin/python bench/servers.py --seconds {args.seconds} --rounds {args.rounds}"
                 + (" --before BINARY" if args.before else "") + (" --pin" if args.pin else "")
                 + (f" --only '{','.join(args.only)}'" if args.only else ""), ""]
        if args.pin:
            lines.insert(-1, "Pinned: every server on core 0 (its workers too), wrk, the origin and this harness on core 1.")
        print("\n".join(lines + notes))
        run = Run(args, scratch, o, origin_dir, sets)
        try:
            run.setup()
            for index in range(args.rounds):
                run.round(index)
        finally:
            servers += run.servers
        mix_results = None
        if (not args.only or "mix" in args.only) and not args.pin:
            # The realistic mix (target 5), with servers of its own: the
            # rounds' servers stop first, so that it has the machine.
            for server in run.servers:
                server.stop()
            mix_text, mix_results = mix.run(args, scratch, o, sets)
        notes += run.notes
        # The raw figures first; the tables are rendered from that file.
        path = save_run(os.path.join(ROOT, "bench", "results") if full else scratch_results(), lines, run.results, run.fair,
                        [n for n, _ in run.darkrooms], run.thumbor_names, [w.name for w in run.workloads], notes, mix_results,
                        pinned=args.pin)
        print(f"raw figures: {path}")
        heading, table = render(path)
        print(table)
        if full:
            write_doc(section, heading + "\n" + table)
            if mix_results:
                write_doc("mix", mix_heading(args) + mix_text)
        else:
            print("(a short run: not written to docs/benchmarks.md)")
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def scratch_results():
    folder = os.path.join(tempfile.gettempdir(), "darkroom-bench-results")
    os.makedirs(folder, exist_ok=True)
    return folder


def mix_heading(args):
    command = "`.venv/bin/python bench/servers.py --mix`" if args.mix else \
        f"`.venv/bin/python bench/servers.py --seconds {args.seconds} --rounds {args.rounds}`, the mix at the end of its run"
    return f"Date: {datetime.date.today()}, commit {commit()}, machine: {machine()}\nCommand: {command}\n\n"


def soak(args, scratch, o, sets):
    extra = ["--memory-cache-mb", "64"] if peers.supports(args.darkroom, "--memory-cache-mb") else []
    server = peers.darkroom(args.darkroom, scratch, extra)
    template = darkroom_template(o, "jpeg")
    print(f"soak: {args.soak} s of cold load at c=16 on darkroom {' '.join(extra)}", flush=True)
    try:
        # Quiet first, then the sampler and the load start together: the
        # first minute must be a minute of load.
        wait_for_quiet([server])
        with RSSSampler(server.pid) as sampler:
            figures = wrk(server.port, 16, args.soak, template=template, photos=sets["jpeg"] + sets["large"], scratch=scratch)
        start = sampler.samples[0][0]
        first_minute = [kib for t, kib in sampler.samples if t - start <= min(60, args.soak / 10 + 1)]
        at_minute = first_minute[-1] / 1024
        at_end = sampler.samples[-1][1] / 1024
        time.sleep(10)
        rested = rss_kib(server.pid) / 1024
        mark = "after the first minute" if args.soak >= 600 else f"after the first {min(60, args.soak / 10 + 1):.0f} s"
        text = (f"Soak: {args.soak} s of cold load at c=16 (JPEG and 12/18 MP photos), {figures['rate']:.1f} req/s, "
                f"{figures['failed'] or 'no failed requests'}.\n\n"
                f"| RSS {mark} | RSS at the end | end / first | 10 s after the load stopped | peak |\n|---|---|---|---|---|\n"
                f"| {at_minute:.0f} MiB | {at_end:.0f} MiB | {at_end / at_minute:.2f} | {rested:.0f} MiB | {sampler.peak_mib:.0f} MiB |\n\n"
                f"RSS at the end within 10% of RSS {mark}: {'met' if at_end <= at_minute * 1.1 else '**not met**'}; "
                f"10 s after the load, RSS is {at_end - rested:.0f} MiB below its level at the end.\n")
        print(text)
        if not args.no_write and args.soak >= 600:
            write_doc("soak", f"Date: {datetime.date.today()}, commit {commit()}, machine: {machine()}\n"
                              f"Command: `make soak` (.venv/bin/python bench/servers.py --soak {args.soak})\n\n" + text)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
