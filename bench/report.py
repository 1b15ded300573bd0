"""The servers' benchmark as tables: every figure and ratio the median with
min-max over the rounds, `failed` where a run it needs failed, no ratio
where the two servers' answers were not the same work; then the targets
of the benchmark, each met or not."""
import os
import platform
import re
import subprocess

from answers import same_work
from peers import CORES
from rounds import median, show

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STRONGER = "thumbor"     # per round, the stronger of the thumbor contenders
JPEG_FLOOR = {"jpeg c=2": "jpeg", "jpeg c=16": "jpeg", "large c=16": "large"}


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
    def __init__(self, results, fair, darkrooms, thumbors, workloads, notes, mix=None):
        """mix: the realistic mix's rounds (bench/mix.py), where the run
        measured it, for target 5."""
        self.r, self.fair, self.darkrooms, self.thumbors = results, fair, darkrooms, thumbors
        self.workloads, self.notes, self.mix = workloads, notes, mix

    def comparable(self, workload, peer):
        """Whether darkroom's answer and the peer's (every thumbor for the
        stronger one) were the same work."""
        answers = self.fair.get(workload, {})
        peers = self.thumbors if peer == STRONGER else [peer]
        return "darkroom" in answers and all(p in answers and same_work(answers["darkroom"], answers[p]) for p in peers)

    def ratio(self, a, b, what, what_b=None, digits=2):
        # Hits need no check of the answers: nginx serves the very bytes
        # darkroom answered for the warm URL.
        if what not in self.fair and not what.startswith("warm "):
            return "not measured", None
        if b in (STRONGER,) + tuple(self.thumbors) + ("darkroom before", "nginx image_filter") and not self.comparable(what, b):
            return "answers differ", None
        values = self.r.ratios(a, b, what, what_b=what_b)
        return show(values, digits, "x"), median(values)

    def text(self):
        r, out = self.r, []
        peers = self.darkrooms + self.thumbors + ["nginx image_filter"]
        out += ["", "What each server answered for the same request, by workload (format, size, chroma subsampling and "
                    "JPEG quantisation tables must match darkroom's for a ratio to be quoted):", ""]
        rows = [[w] + [self.fair.get(w, {}).get(p, {}).get("line", "-") for p in peers] for w in self.workloads]
        out += table(["workload"] + peers, rows)

        out += ["", f"Cold (every request a new source URL), requests/s, median (min-max) of {len(r.rounds)} rounds; "
                    "thumbor: the stronger of its two in each round:", ""]
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

        out += ["", f"Cold JPEG figures as a fraction of the entropy-decode floor (bench/entropy_decode.c: libjpeg's "
                    f"jpeg_read_coefficients on the same files, {CORES} threads, no IDCT, no colour conversion, no HTTP), "
                    "with Pillow's draft decode (DCT-scaled decode, no resize or encode) for scale:", ""]
        rows = []
        for w, sources in JPEG_FLOOR.items():
            rows.append([w, show(r.series("entropy floor", sources)), show(r.series("Pillow draft decode", sources))]
                        + [show(r.ratios(p, "entropy floor", w, what_b=sources), 2) for p in peers])
        out += table(["workload", "floor, img/s", "Pillow draft decode, img/s"] + peers, rows)

        out += ["", f"In process ({CORES} threads, bytes in memory, no HTTP, the same encoder settings), images/s, "
                    "and darkroom's rate against them:", ""]
        rows = []
        for w in self.workloads:
            if r.series("pillow", w) or r.series("pyvips", w):
                rows.append([w, show(r.series("pillow", w)), show(r.series("pyvips", w)),
                             show(r.ratios("darkroom", "pillow", w), 2, "x"), show(r.ratios("darkroom", "pyvips", w), 2, "x")])
        out += table(["workload", "Pillow", "pyvips", "darkroom / Pillow", "darkroom / pyvips"], rows)

        out += ["", "Hits (one cached URL again and again), requests/s; nginx serves the same bytes from a file, tuned "
                    f"(worker per core, reuseport, open_file_cache, sendfile):", ""]
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

        out += ["", "Memory: peak RSS while serving, MiB (summed over a server's processes; darkroom with "
                    "--memory-cache-mb 64 where it has the flag):", ""]
        rows = [[who, show(r.series(who, "jpeg c=16", "peak_rss"), 0), show(r.series(who, "large c=16", "peak_rss"), 0),
                 show(r.series(who, "rss after", "loaded"), 0), show(r.series(who, "rss after", "rested"), 0)]
                for who in self.darkrooms + self.thumbors]
        out += table(["server", "jpeg c=16", "large c=16", "after the probe's load", "10 s later"], rows)

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

        def check(name, checks):
            target(name, [c[0] for c in checks], all(c[1] for c in checks))

        check("1. cold JPEG c=16: >= 2.0x thumbor, >= 1.5x Pillow in process, >= 0.85 of the entropy-decode floor",
              [at_least("darkroom", STRONGER, "jpeg c=16", 2.0, "thumbor"),
               at_least("darkroom", "pillow", "jpeg c=16", 1.5, "Pillow"),
               at_least("darkroom", "entropy floor", "jpeg c=16", 0.85, "floor", what_b="jpeg")])
        check("2. cold 12/18 MP c=16: >= 1.5x thumbor", [at_least("darkroom", STRONGER, "large c=16", 1.5, "thumbor")])
        check("3. WebP answers >= 2x thumbor AUTO_WEBP; AVIF answers >= 2x thumbor and >= 1.0x pyvips in process",
              [at_least("darkroom", STRONGER, "accept webp c=16", 2.0, "WebP (Accept)"),
               at_least("darkroom", STRONGER, "avif answers c=16", 2.0, "AVIF"),
               at_least("darkroom", "pyvips", "avif answers c=16", 1.0, "AVIF / pyvips")])
        sources = ["png c=16", "webp c=16", "webp lossless c=16", "avif c=16", "heic c=16"]
        missing = [w for w in sources if w not in self.workloads]
        checks = [at_least("darkroom", STRONGER, w, 2.0, w.split(" c=")[0]) for w in sources if w in self.workloads]
        target("4. PNG (adaptive filters), WebP, AVIF, HEIC sources: >= 2x thumbor each",
               [c[0] for c in checks] + [f"{w}: not measured" for w in missing], all(c[1] for c in checks),
               measured=not missing)
        name = "5. the mix: >= 3x thumbor behind nginx's cache, client p99 no higher"
        if self.mix and self.mix.series("darkroom", "mix"):
            figures, met = mix_target(self.mix)
            target(name, [figures], met)
        else:
            target(name, ["not in this run"], False, measured=False)
        hits = at_least("darkroom", "nginx static", "warm c=16", 1.0, "hits / nginx")
        p99s, skipped = r.series("darkroom", "probe", "p99"), r.series("darkroom", "probe", "skipped")
        probe_ok = bool(p99s) and median(p99s) is not None and max(p99s) < 5 and max(skipped) == 0
        check("6. hits >= 1.0x tuned nginx static at c=16; probe p99 under 5 ms in every round, none skipped",
              [hits, (f"probe p99 {show(p99s, 2)} ms, skipped {show(skipped, 0)}", probe_ok)])
        peaks = r.series("darkroom", "large c=16", "peak_rss")
        ok = median(peaks) is not None and max(peaks) * 1.048576 <= 150
        check("7. peak RSS, --memory-cache-mb 64, cold 12/18 MP c=16: <= 150 MB in every round",
              [(f"{show(peaks, 0)} MiB" + (f", highest {max(peaks) * 1.048576:.0f} MB" if median(peaks) else ""), ok)])
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
