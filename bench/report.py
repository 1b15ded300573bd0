"""The servers' benchmark as tables: every figure and ratio the median with
min-max over the rounds, `failed` where a run it needs failed, no ratio
where the two servers' answers were not the same work; then the targets
of the benchmark, each met or not."""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess

from answers import same_work
from peers import CORES
from rounds import Rounds, median, show

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STRONGER = "thumbor"     # per round, the stronger of the thumbor contenders
# The cold workloads darkroom's CPU per answer is set against the JPEG
# floor of, and the floor's sources.
JPEG_FLOOR = {"jpeg c=16": "jpeg", "large c=16": "large", "webp answers c=16": "jpeg", "avif answers c=16": "jpeg"}
# The floor's measure for each answer format.
FLOOR_MEASURE = {"jpeg": "decode_encode_optimised", "webp": "decode_encode_webp", "avif": "decode_encode_avif"}
FLOOR_TARGET = 1.15     # CPU an answer at most this times the floor's (JPEG)
ENCODER_FLOOR_TARGET = 1.1     # and for WebP and AVIF answers


def floor_measure(workload):
    return FLOOR_MEASURE[workload.split(" answers")[0] if " answers" in workload else "jpeg"]


def table(header, rows):
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]


def mix_target(results):
    """Target 5 as the realistic mix's rounds (bench/mix.py) measured it:
    its figures in words, and whether darkroom's throughput is at least 3x
    the stronger thumbor's behind nginx's cache at a p99 no higher (medians
    of the per-round ratios)."""
    throughput = results.ratios("darkroom", "thumbor", "mix")
    latency = results.ratios("darkroom", "thumbor", "mix", key="p99")
    met = (median(throughput) or 0) >= 3 and median(latency) is not None and median(latency) <= 1
    return f"throughput {show(throughput, 2, 'x')}, p99 {show(latency, 2, 'x')}", met


class Report:
    def __init__(self, results, fair, darkrooms, thumbors, workloads, notes, mix=None, pinned=False):
        """mix: the realistic mix's rounds (bench/mix.py), where the run
        measured it, for target 8; pinned: a --pin run (servers on one core,
        nginx's static server with one worker), for target 5."""
        self.r, self.fair, self.darkrooms, self.thumbors = results, fair, darkrooms, thumbors
        self.workloads, self.notes, self.mix, self.pinned = workloads, notes, mix, pinned

    def comparable(self, workload, peer):
        """Whether darkroom's answer and the peer's (every thumbor for the
        stronger one) were the same work."""
        answers = self.fair.get(workload, {})
        peers = self.thumbors if peer == STRONGER else [peer]
        return "darkroom" in answers and all(p in answers and same_work(answers["darkroom"], answers[p]) for p in peers)

    def ratio(self, a, b, what, what_b=None, digits=2, key="rate"):
        # Hits need no check of the answers: nginx serves the very bytes
        # darkroom answered for the warm URL.
        if what not in self.fair and not what.startswith("warm "):
            return "not measured", None
        peers = (STRONGER,) + tuple(self.thumbors) + ("darkroom before", "nginx image_filter")
        if (a in peers or b in peers) and not self.comparable(what, a if a in peers else b):
            return "answers differ", None
        values = self.r.ratios(a, b, what, key=key, what_b=what_b)
        return show(values, digits, "x"), median(values)

    def floor_ratios(self, workload):
        """darkroom's CPU an answer over the floor's, per round."""
        out = []
        for figures in self.r.rounds:
            ours, floor = figures.get(("darkroom", workload)), figures.get(("floor", JPEG_FLOOR[workload]))
            measure = floor_measure(workload)
            if isinstance(ours, dict) and isinstance(floor, dict) and ours.get("cpu_ms") and floor.get(measure):
                out.append(ours["cpu_ms"] / floor[measure])
        return out

    def text(self):
        r, out = self.r, []
        peers = self.darkrooms + self.thumbors + ["nginx image_filter"]
        out += ["", "What each server answered for the same request, by workload (format, size, chroma subsampling and "
                    "JPEG quantisation tables must match darkroom's for a ratio to be quoted):", ""]
        rows = [[w] + [self.fair.get(w, {}).get(p, {}).get("line", "-") for p in peers] for w in self.workloads]
        out += table(["workload"] + peers, rows)

        out += ["", f"Cold (every request a new source URL), requests/s, median (min-max) of {len(r.rounds)} rounds; "
                    "thumbor: the strongest of its deployments in each round:", ""]
        header = ["workload"] + peers + ["darkroom / thumbor"] + (["darkroom / before"] if len(self.darkrooms) > 1 else [])
        rows = []
        for w in self.workloads:
            row = [w] + [show(r.series(p, w)) for p in peers] + [self.ratio("darkroom", STRONGER, w)[0]]
            if len(self.darkrooms) > 1:
                row.append(self.ratio("darkroom", "darkroom before", w)[0])
            rows.append(row)
        out += table(header, rows)
        out += ["", "Cold p99 latency, ms:", ""]
        out += table(["workload"] + peers, [[w] + [show(r.series(p, w, "p99"), 0) for p in peers] for w in self.workloads])

        out += ["", "CPU time an answer, ms (user and system from /proc, each server's processes with their forked workers; "
                    "wrk and the origin not counted), and how many times darkroom's the stronger thumbor's is:", ""]
        rows = [[w] + [show(r.series(p, w, "cpu_ms"), 2) for p in peers]
                + [self.ratio(STRONGER, "darkroom", w, key="cpu_ms")[0]] for w in self.workloads]
        out += table(["workload"] + peers + ["thumbor / darkroom"], rows)

        single = [w for w in self.workloads if w.endswith(" c=1")]
        if single:
            out += ["", "Cold latency of one request at a time (c=1), ms, p50 / p99:", ""]
            out += table(["workload"] + peers, [[w] + [show(r.series(p, w, "p50"), 1) + " / " + show(r.series(p, w, "p99"), 1)
                                                       for p in peers] for w in single])

        out += ["", "The floor of a cold answer from a JPEG source (bench/jpeg_floor.c: libjpeg-turbo decoding each source "
                    "at the shrink-on-load scale into one buffer, then writing the 512-px answer with the servers' "
                    "encoder and settings: libjpeg-turbo, Huffman tables made for the image; libwebp, method 4; "
                    "libheif with libaom, speed 8; on one core), CPU ms an image, against darkroom's CPU an answer:", ""]
        rows = [[w, show(r.series("floor", sources, "decode_at_scale"), 2), show(r.series("floor", sources, floor_measure(w)), 2),
                 show(r.series("darkroom", w, "cpu_ms"), 2), show(self.floor_ratios(w), 2, "x")]
                for w, sources in JPEG_FLOOR.items() if w in self.workloads]
        out += table(["workload", "decode_at_scale", "decode_encode", "darkroom", "darkroom / floor"], rows)

        out += ["", f"In process ({CORES} threads, bytes in memory, no HTTP, the same encoder settings), images/s, "
                    "and darkroom's rate against them:", ""]
        rows = []
        for w in self.workloads:
            if r.series("pillow", w) or r.series("pyvips", w):
                rows.append([w, show(r.series("pillow", w)), show(r.series("pyvips", w)),
                             show(r.ratios("darkroom", "pillow", w), 2, "x"), show(r.ratios("darkroom", "pyvips", w), 2, "x")])
        out += table(["workload", "Pillow", "pyvips", "darkroom / Pillow", "darkroom / pyvips"], rows)

        workers = "one worker, on darkroom's core" if self.pinned else "a worker per core"
        out += ["", "Hits (one cached URL again and again), requests/s; nginx serves the same bytes from a file, tuned "
                    f"({workers}, reuseport, open_file_cache, sendfile):", ""]
        hitters = self.darkrooms + ["nginx static"]
        rows = [[f"c={c}"] + [show(r.series(p, f"warm c={c}"), 0) + " / p99 " + show(r.series(p, f"warm c={c}", "p99"), 2)
                              for p in hitters]
                + [show(r.ratios("darkroom", "nginx static", f"warm c={c}"), 2, "x")] for c in (2, 16)]
        out += table(["clients"] + hitters + ["darkroom / nginx"], rows)

        out += ["", "A cached image every 50 ms while 16 clients ask for cold JPEG work (per round; median (min-max)):", ""]
        rows = []
        for who in self.darkrooms:
            if r.series(who, "probe", "p99"):
                samples = r.series(who, "probe", "count")
                rows.append([who, show(r.series(who, "probe", "p50"), 2), show(r.series(who, "probe", "p99"), 2),
                             show(r.series(who, "probe", "max"), 1), show(r.series(who, "probe", "skipped"), 0),
                             f"{min(samples)}-{max(samples)}" if samples and all(isinstance(s, int) for s in samples) else "-",
                             show(r.series(who, "probe", "load_rate"))])
        out += table(["server", "p50 ms", "p99 ms", "max ms", "skipped", "samples a round", "cold req/s meanwhile"], rows)

        out += ["", "Memory while serving, MiB: peak PSS (each shared page counted once across a server's processes) "
                    "and peak RSS (summed over them, so a forking server's shared pages count in each); darkroom with "
                    "--memory-cache-mb 64 where it has the flag:", ""]
        rows = [[who, show(r.series(who, "jpeg c=16", "peak_pss"), 0), show(r.series(who, "large c=16", "peak_pss"), 0),
                 show(r.series(who, "jpeg c=16", "peak_rss"), 0), show(r.series(who, "large c=16", "peak_rss"), 0),
                 show(r.series(who, "rss after", "loaded"), 0), show(r.series(who, "rss after", "rested"), 0)]
                for who in self.darkrooms + self.thumbors]
        out += table(["server", "PSS jpeg c=16", "PSS large c=16", "RSS jpeg c=16", "RSS large c=16",
                      "RSS after the probe's load", "10 s later"], rows)

        sepia = r.ratios("darkroom", "darkroom", "jpeg+sepia c=16", what_b="jpeg c=16 (paired)")
        if sepia:
            out += ["", f"Sepia's cost: jpeg c=16 with sepia:0.8 runs at {show(sepia, 2)} of the rate without it, "
                        "measured back to back."]
        if self.notes:
            out += [""] + [f"Note: {n}" for n in self.notes]
        out += self.targets()
        return "\n".join(out) + "\n"

    def targets(self):
        r, rows = self.r, []

        def target(name, parts, met, measured=True):
            state = "not measured" if not measured else "met" if met else "**not met**"
            rows.append([name, "; ".join(parts), state])

        def at_least(a, b, what, bound, label, what_b=None):
            text, value = self.ratio(a, b, what, what_b=what_b)
            return f"{label} {text}", value is not None and value >= bound

        def check(name, checks, measured=True):
            target(name, [c[0] for c in checks], all(c[1] for c in checks), measured)

        def floor(workload):
            values = self.floor_ratios(workload)
            return f"CPU {show(values, 2, 'x')} the floor", median(values) is not None and median(values) <= FLOOR_TARGET

        check(f"1. cold JPEG c=16: CPU an answer <= {FLOOR_TARGET}x the floor; >= 2.0x the stronger thumbor",
              [floor("jpeg c=16"), at_least("darkroom", STRONGER, "jpeg c=16", 2.0, "thumbor")],
              measured=bool(self.floor_ratios("jpeg c=16")))
        check(f"2. cold 12/18 MP c=16: CPU <= {FLOOR_TARGET}x the floor; >= 1.5x thumbor",
              [floor("large c=16"), at_least("darkroom", STRONGER, "large c=16", 1.5, "thumbor")],
              measured=bool(self.floor_ratios("large c=16")))
        def encoder_floor(workload):
            values = self.floor_ratios(workload)
            return (f"{workload.split(' answers')[0]} {show(values, 2, 'x')}",
                    median(values) is not None and median(values) <= ENCODER_FLOOR_TARGET)

        check(f"3. WebP and AVIF answers (c=16): CPU <= {ENCODER_FLOOR_TARGET}x their floors",
              [encoder_floor("webp answers c=16"), encoder_floor("avif answers c=16")],
              measured=bool(self.floor_ratios("webp answers c=16")) and bool(self.floor_ratios("avif answers c=16")))
        sources = ["jpeg c=16", "large c=16", "png c=16", "webp c=16", "webp lossless c=16", "avif c=16", "heic c=16"]
        missing = [w for w in sources if w not in self.workloads]
        checks = [at_least("darkroom", STRONGER, w, 1.5, w.split(" c=")[0]) for w in sources if w in self.workloads]
        target("4. every source format: >= 1.5x the stronger thumbor",
               [c[0] for c in checks] + [f"{w}: not measured" for w in missing], all(c[1] for c in checks),
               measured=not missing)
        if self.pinned:
            check("5. hits: >= 1.0x nginx with one worker, each pinned to one core",
                  [at_least("darkroom", "nginx static", "warm c=16", 1.0, "hits / nginx, both on core 0")],
                  measured=bool(r.series("darkroom", "warm c=16")))
        else:
            hits = at_least("darkroom", "nginx static", "warm c=16", 1.0, "hits / nginx (a worker per core, not pinned)")
            target("5. hits: >= 1.0x nginx with one worker, each pinned to one core", [hits[0], "measured in a --pin run"],
                   False, measured=False)
        peaks = r.series("darkroom", "large c=16", "peak_pss")
        ok = median(peaks) is not None and max(peaks) * 1.048576 <= 150
        check("6. peak PSS, --memory-cache-mb 64, cold 12/18 MP c=16 after the other workloads: <= 150 MB in every round",
              [(f"{show(peaks, 0)} MiB" + (f", highest {max(peaks) * 1.048576:.0f} MB" if median(peaks) else ""), ok)],
              measured=bool(peaks))
        p50s, p99s = r.series("darkroom", "jpeg c=1", "p50"), r.series("darkroom", "jpeg c=1", "p99")
        spread = [b / a for a, b in zip(p50s, p99s) if isinstance(a, float) and isinstance(b, float) and a]
        target("7. cold JPEG at c=1: p99 under 2x p50", [f"p99 / p50 {show(spread, 2, 'x')}"],
               median(spread) is not None and max(spread) < 2, measured=bool(spread))
        name = "8. the mix: >= 3x thumbor behind nginx's cache, client p99 no higher"
        if self.mix and self.mix.series("darkroom", "mix"):
            figures, met = mix_target(self.mix)
            target(name, [figures], met)
        else:
            target(name, ["not in this run"], False, measured=False)
        return ["", "The targets, as this run measured them (median, range over the rounds):", ""] + \
            table(["target", "this run", ""], rows)


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{CORES} cores ({model}), {memory:.0f} GiB, {platform.system()} {platform.release()}"


def commit():
    out = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    # Changes to docs/ (this script writes there) do not change what is measured.
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs"],
                           capture_output=True, text=True).stdout
    return out.stdout.strip() + (" (with uncommitted changes)" if dirty.strip() else "")


def write_doc(section, text):
    path = os.path.join(ROOT, "docs", "benchmarks.md")
    with open(path) as f:
        doc = f.read()
    begin, end = f"<!-- {section}:begin -->", f"<!-- {section}:end -->"
    block = f"{begin}\n{text}\n{end}"
    if begin in doc:
        doc = re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, doc, flags=re.S)
    else:
        doc += "\n" + block + "\n"
    with open(path, "w") as f:
        f.write(doc)
    print(f"written to docs/benchmarks.md ({section})")


def save_run(folder, heading, results, fair, darkrooms, thumbors, workloads, notes, mix=None, pinned=False):
    """Writes a run's raw figures, round by round, as JSON into `folder`;
    returns the file's path."""
    os.makedirs(folder, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M")
    path = os.path.join(folder, f"servers-{stamp}-{commit().split()[0]}.json")
    data = {"heading": heading, "darkrooms": darkrooms, "thumbors": thumbors, "workloads": workloads, "notes": notes,
            "fair": fair, "rounds": results.to_json(), "mix": mix.to_json() if mix else None, "pinned": pinned}
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
    return path


def render(path):
    """A run's heading and tables, from its raw figures."""
    with open(path) as f:
        data = json.load(f)
    results = Rounds.from_json(data["rounds"])
    for w in data["workloads"]:
        results.stronger(STRONGER, data["thumbors"], w)
    mix = Rounds.from_json(data["mix"]) if data.get("mix") else None
    text = Report(results, data["fair"], data["darkrooms"], data["thumbors"], data["workloads"], data["notes"], mix=mix,
                  pinned=data.get("pinned", False)).text()
    heading = "\n".join(data["heading"]) + f"\nRaw figures: bench/results/{os.path.basename(path)}\n"
    return heading, text


def scaling(one_core, two_cores):
    """One core against two: a pinned run's figures (bench/servers.py --pin)
    beside an unpinned run's, per workload, for darkroom and the strongest
    thumbor: rate, CPU an answer, and how the rate grows with the second core."""
    runs = []
    for path in (one_core, two_cores):
        with open(path) as f:
            data = json.load(f)
        results = Rounds.from_json(data["rounds"])
        for w in data["workloads"]:
            results.stronger(STRONGER, data["thumbors"], w)
        runs.append((results, data["workloads"]))
    (one, one_workloads), (two, two_workloads) = runs
    rows = []
    for w in [w for w in two_workloads if w in one_workloads and not w.endswith(" c=1")]:
        for who in ("darkroom", STRONGER):
            a, b = median(one.series(who, w)), median(two.series(who, w))
            growth = f"{b / a:.2f}x" if a and b else "-"
            rows.append([w, who, show(one.series(who, w)), show(two.series(who, w)), growth,
                         show(one.series(who, w, "cpu_ms"), 2), show(two.series(who, w, "cpu_ms"), 2)])
    lines = [f"One core ({os.path.basename(one_core)}, pinned) against two ({os.path.basename(two_cores)}), requests/s and "
             "CPU ms an answer, median (min-max):", ""]
    return "\n".join(lines + table(["workload", "server", "1 core", "2 cores", "2 / 1", "CPU 1 core", "CPU 2 cores"], rows)) + "\n"


def main():
    parser = argparse.ArgumentParser(description="Renders a servers' run from its raw figures (bench/results/*.json).")
    parser.add_argument("run", nargs="+", help="a JSON file bench/servers.py wrote; with --scaling, a pinned one and an unpinned one")
    parser.add_argument("--write", action="store_true", help="into docs/benchmarks.md, in place of the run's section")
    parser.add_argument("--scaling", action="store_true", help="one core (a --pin run) against two")
    args = parser.parse_args()
    if args.scaling:
        if len(args.run) != 2:
            parser.error("--scaling takes two runs: the pinned one, then the unpinned one")
        text = scaling(*args.run)
        print(text)
        if args.write:
            write_doc("scaling", text)
        return
    heading, text = render(args.run[0])
    print(heading + "\n" + text)
    if args.write:
        write_doc("servers-pinned" if "Pinned:" in heading else "servers", heading + "\n" + text)


if __name__ == "__main__":
    main()
