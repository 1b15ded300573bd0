#!/usr/bin/env python3
"""Image servers side by side, in one run, on loopback.

Every server does the same work: fit the source inside 512 x 512, write a
baseline JPEG at quality 80 with 4:2:0 chroma subsampling. Contenders:

- darkroom serve (release), and optionally a second darkroom binary
  (--before) so that a change is measured against its parent in one run;
- thumbor 7.8 from PyPI (engine thread pool = cores, no storage, no result
  storage, progressive JPEG off);
- nginx with Debian's image_filter module (libgd: it cannot shrink on load);
- nginx serving pre-made outputs as static files (the warm limit);
- Pillow (draft to the fitted size, then Lanczos) and pyvips (thumbnail) in
  process, two threads, no HTTP (the cold limits).

An nginx origin serves the corpus photos, 12 and 18 megapixel versions of
some, and PNG and WebP versions. A cold request names a source URL no server
has seen (a new path segment per request); a warm request repeats one URL.
wrk drives each server at c=2 and c=16. A probe asks for a cached image
every 50 ms while 16 clients keep the cores busy with cold work. The table
of figures and ratios is printed and written to docs/benchmarks.md.

    python3 bench/servers.py [--darkroom PATH] [--before PATH] [--seconds N]
    python3 bench/servers.py --soak SECONDS     (only the long run)
"""
import argparse
import concurrent.futures
import datetime
import http.client
import io
import json
import os
import platform
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import pillow_fit

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS = os.environ.get("DARKROOM_CORPUS", os.path.join(ROOT, "..", "shared", "corpus"))
VENV = os.path.join(ROOT, ".venv")
SIZE, QUALITY = 512, 80
CORES = os.cpu_count() or 2
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
IMAGE_FILTER = "/usr/lib/nginx/modules/ngx_http_image_filter_module.so"


# MARK: - Processes and ports

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, path="/", timeout=60, accept=(200, 404)):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", path)
            status = c.getresponse().status
            c.close()
            if status in accept:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit(f"nothing answered on port {port} within {timeout} s")


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class RSSSampler:
    """Samples a process's resident memory every 100 ms."""

    def __init__(self, pid):
        self.pid, self.samples, self._stop = pid, [], threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.samples.append((time.time(), rss_kib(self.pid)))
            self._stop.wait(0.1)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    @property
    def peak_mib(self):
        return max((kib for _, kib in self.samples), default=0) / 1024


class Server:
    """A peer's process group; `ready`: the path to poll until it answers
    (None: the caller decides when it is ready)."""

    def __init__(self, name, command, port, env=None, ready="/", cwd=None):
        self.name, self.port = name, port
        self.process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        if ready is not None:
            wait_for(port, ready)

    @property
    def pid(self):
        return self.process.pid

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def nginx(name, scratch, body, workers=1, modules=()):
    folder = os.path.join(scratch, name)
    os.makedirs(os.path.join(folder, "logs"), exist_ok=True)
    port = free_port()
    user = "user root;" if os.geteuid() == 0 else ""
    loads = "".join(f"load_module {m};\n" for m in modules)
    conf = f"""{loads}{user}
worker_processes {workers};
daemon off;
pid {folder}/nginx.pid;
error_log {folder}/logs/error.log error;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 100000;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    types {{ image/jpeg jpg; image/png png; image/webp webp; }}
    server {{
        listen 127.0.0.1:{port};
        {body.replace("PORT", str(port))}
    }}
}}
"""
    path = os.path.join(folder, "nginx.conf")
    with open(path, "w") as f:
        f.write(conf)
    return Server(name, [NGINX, "-c", path, "-p", folder], port)


# MARK: - Sources

def make_sources(scratch):
    """The origin's files: corpus JPEGs, large JPEGs, PNG and WebP versions."""
    origin = os.path.join(scratch, "origin")
    os.makedirs(origin)
    folder = os.path.join(CORPUS, "photos")
    photos = sorted(f for f in os.listdir(folder) if f.endswith(".jpg"))
    for name in photos:
        shutil.copy(os.path.join(folder, name), origin)
    sets = {"jpeg": photos, "large": [], "png": [], "webp": []}

    def vips(*args):
        subprocess.run(["vips", *args], check=True, env=dict(os.environ, VIPS_CONCURRENCY=str(CORES)))

    jobs = []
    for name in photos[:4]:
        stem = name[:-4]
        for mp in (12, 18):
            jobs.append((name, f"{stem}-{mp}mp.jpg", mp))
    for name, out, mp in jobs:
        src = os.path.join(origin, name)
        w, h = header_size(src)
        scale = (mp * 1e6 / (w * h)) ** 0.5
        vips("resize", src, os.path.join(origin, out) + "[Q=90]", f"{scale:.4f}")
        sets["large"].append(out)
    for name in photos:
        stem = name[:-4]
        vips("copy", os.path.join(origin, name), os.path.join(origin, stem + ".png"))
        vips("copy", os.path.join(origin, name), os.path.join(origin, stem + ".webp") + "[Q=90]")
        sets["png"].append(stem + ".png")
        sets["webp"].append(stem + ".webp")
    return origin, sets


def header_size(path):
    out = subprocess.run(["vipsheader", "-f", "width", path], capture_output=True, text=True, check=True).stdout
    w = int(out)
    h = int(subprocess.run(["vipsheader", "-f", "height", path], capture_output=True, text=True, check=True).stdout)
    return w, h


# MARK: - Load

WRK_SCRIPT = """
local prefix, suffix = %(prefix)s, %(suffix)s
local photos = {%(photos)s}
local run = %(run)s
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tag", run .. "t" .. threads)
end
local counter = 0
function request()
  counter = counter + 1
  local photo = photos[(counter %% #photos) + 1]
  return wrk.format("GET", prefix .. tag .. "n" .. counter .. "/" .. photo .. suffix)
end
"""


def lua_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def wrk(port, connections, seconds, path=None, template=None, photos=None, scratch=None, quiet_first=True):
    """Runs wrk; returns requests/s, p99 in ms, and the count of non-2xx answers."""
    if quiet_first:
        wait_for_quiet()
    command = ["wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "30s"]
    if template:
        prefix, suffix = template.split("{nonce}/{photo}")
        script = os.path.join(scratch, f"cold-{random.getrandbits(40):x}.lua")
        with open(script, "w") as f:
            f.write(WRK_SCRIPT % {"prefix": lua_string(prefix), "suffix": lua_string(suffix),
                                  "photos": ", ".join(lua_string(p) for p in photos),
                                  "run": lua_string(f"r{random.getrandbits(40):x}")})
        command += ["-s", script]
        path = "/"
    out = subprocess.run(command + [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = latency_ms(re.search(r"99%\s+([\d.]+\w+)", out).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {"rate": rate, "p99": p99, "non2xx": int(bad.group(1)) if bad else 0,
            "socket_errors": errors.group(1) if errors else ""}


def cpu_idle_fraction(seconds=0.5):
    def sample():
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)
    idle0, total0 = sample()
    time.sleep(seconds)
    idle1, total1 = sample()
    return (idle1 - idle0) / max(1, total1 - total0)


def wait_for_quiet(limit=60):
    """Waits until the CPU is idle: a peer that does not stop work when its
    client hangs up (thumbor, image_filter) must not bill the next run."""
    deadline = time.time() + limit
    while time.time() < deadline and cpu_idle_fraction() < 0.85:
        pass


def latency_ms(text):
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def probe(port, path, seconds, interval=0.05):
    """Asks for `path` every `interval` on one keep-alive connection.

    Returns the latencies in ms and how many ticks were skipped because the
    previous answer had not come yet."""
    latencies, skipped = [], 0
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.perf_counter()
    tick = 0
    while True:
        due = start + tick * interval
        now = time.perf_counter()
        if now - start > seconds:
            break
        if due > now:
            time.sleep(due - now)
        t0 = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        latencies.append((time.perf_counter() - t0) * 1000)
        done = time.perf_counter()
        next_tick = int((done - start) / interval) + 1
        skipped += max(0, next_tick - tick - 1)
        tick = next_tick
    connection.close()
    return latencies, skipped


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))] if values else 0


# MARK: - In-process limits

def in_process(kind, origin, names, seconds):
    """Images per second that Pillow or pyvips make with 2 threads, from bytes in memory."""
    blobs = [open(os.path.join(origin, n), "rb").read() for n in names]
    if kind == "decode":
        from PIL import Image

        def one(data):
            # libjpeg's decode at the DCT scale every server uses, and nothing
            # else: the ceiling for JPEG sources.
            with Image.open(io.BytesIO(data)) as im:
                im.draft("RGB", pillow_fit.fitted_size(im.size, SIZE))
                im.load()
    elif kind == "pillow":
        from PIL import Image

        def one(data):
            with Image.open(io.BytesIO(data)) as im:
                im = pillow_fit.fit(im, SIZE)
                out = io.BytesIO()
                im.save(out, "JPEG", quality=QUALITY, subsampling="4:2:0")
                return out.getvalue()
    else:
        import pyvips
        pyvips.cache_set_max(0)

        def one(data):
            image = pyvips.Image.thumbnail_buffer(data, SIZE, height=SIZE, size="down")
            return image.jpegsave_buffer(Q=QUALITY, strip=True)
    done = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        while time.perf_counter() < deadline:
            list(pool.map(one, blobs))
            done += len(blobs)
    return done / (time.perf_counter() - start)


def in_process_subprocess(kind, origin, names, seconds):
    python = os.path.join(VENV, "bin", "python")
    code = (f"import sys; sys.path.insert(0, {HERE!r}); import servers; "
            f"print(servers.in_process({kind!r}, {origin!r}, {names!r}, {seconds}))")
    env = dict(os.environ, VIPS_CONCURRENCY="1")
    # pyvips with threads has been seen to crash in libvips' allocator now
    # and then; a crashed run is said and run again, once.
    for attempt in range(2):
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env)
        if out.returncode == 0:
            return float(out.stdout.strip().splitlines()[-1])
        print(f"  {kind} in-process run failed (exit {out.returncode}): {out.stderr.strip()[-200:]}", file=sys.stderr)
    return 0.0


# MARK: - Contenders

def start_darkroom(binary, scratch, extra=()):
    port = free_port()
    cache = tempfile.mkdtemp(dir=scratch, prefix="darkroom-cache-")
    command = [binary, "serve", "--host", "127.0.0.1", "--port", str(port), "--allow-private-networks",
               "--cache-dir", cache, "--max-waiting", "10000", *extra]
    env = dict(os.environ, LOG_LEVEL="warning")
    return Server(os.path.basename(binary), command, port, env=env, ready="/health")


def supports(binary, flag):
    out = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True).stdout
    return flag in out


def start_thumbor(scratch):
    port = free_port()
    conf = os.path.join(scratch, "thumbor.conf")
    with open(conf, "w") as f:
        f.write(f"""
ENGINE_THREADPOOL_SIZE = {CORES}
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
QUALITY = {QUALITY}
PROGRESSIVE_JPEG = False
PRESERVE_EXIF_INFO = False
ALLOW_UNSAFE_URL = True
AUTO_WEBP = False
RESPECT_ORIENTATION = True
MAX_AGE = 3600
HTTP_LOADER_MAX_CLIENTS = 32
""")
    command = [os.path.join(VENV, "bin", "thumbor"), "-p", str(port), "-i", "127.0.0.1", "-c", conf, "-l", "error"]
    return Server("thumbor", command, port, ready="/healthcheck")


def fairness(port, path):
    """What a server answered: size, format, chroma subsampling, quality table."""
    from PIL import Image, JpegImagePlugin
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    if r.status != 200:
        return f"HTTP {r.status}"
    im = Image.open(io.BytesIO(body))
    sampling = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}.get(JpegImagePlugin.get_sampling(im), "?") if im.format == "JPEG" else "-"
    qsum = sum(im.quantization[0]) if im.format == "JPEG" else 0
    progressive = "progressive" if im.info.get("progressive") else "baseline"
    return f"{im.format} {im.size[0]}x{im.size[1]} {sampling} luma-qtable-sum={qsum} {progressive}"


# MARK: - The run

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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--darkroom", default=os.path.join(ROOT, ".build", "release", "darkroom"))
    parser.add_argument("--before", help="a second darkroom binary to measure in the same run")
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("BENCH_SECONDS", "15")), help="per wrk run")
    parser.add_argument("--soak", type=int, help="only the long run: cold load for this many seconds")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/benchmarks.md as it is")
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="darkroom-servers-")
    os.chmod(scratch, 0o755)
    servers = []
    try:
        origin_dir, sets = make_sources(scratch)
        origin = nginx("origin", scratch, f"location ~ ^/c/[^/]+/(.+)$ {{ alias {origin_dir}/$1; }}\n"
                                          f"location /files/ {{ alias {origin_dir}/; }}")
        servers.append(origin)
        o = f"127.0.0.1:{origin.port}"
        if args.soak:
            return soak(args, scratch, o, sets)

        lines = [f"Machine: {machine()}", f"Date: {datetime.date.today()}", f"Commit: {commit()}",
                 f"Command: python3 bench/servers.py --seconds {args.seconds}" + (" --before BINARY" if args.before else ""), ""]
        print("\n".join(lines))

        darkrooms = [("darkroom", args.darkroom)] + ([("darkroom before", args.before)] if args.before else [])
        templates = {}
        for name, binary in darkrooms:
            templates[name] = f"/img/_/rs:fit:{SIZE}:{SIZE}/q:{QUALITY}/plain/http://{o}/c/{{nonce}}/{{photo}}@jpg"
        templates["thumbor"] = f"/unsafe/fit-in/{SIZE}x{SIZE}/filters:quality({QUALITY}):format(jpeg)/{o}/c/{{nonce}}/{{photo}}"
        templates["nginx image_filter"] = "/if/c/{nonce}/{photo}"

        results = {}       # (contender, workload) -> figures
        fair = {}

        def cold(name, port, workload, photos, connections, pid=None, template=None):
            template = template or templates[name]
            sampler = RSSSampler(pid) if pid else None
            if sampler:
                sampler.__enter__()
            figures = wrk(port, connections, args.seconds, template=template, photos=photos, scratch=scratch)
            if sampler:
                sampler.__exit__()
                figures["peak_rss"] = sampler.peak_mib
            results[(name, workload)] = figures
            print(f"  {name:20s} {workload:18s} {figures['rate']:8.1f} req/s  p99 {figures['p99']:8.1f} ms"
                  + (f"  peak RSS {figures['peak_rss']:.0f} MiB" if sampler else "")
                  + (f"  non-2xx {figures['non2xx']}" if figures["non2xx"] else ""), flush=True)

        workloads = [("jpeg c=2", "jpeg", 2), ("jpeg c=16", "jpeg", 16), ("large c=16", "large", 16),
                     ("png c=16", "png", 16), ("webp c=16", "webp", 16)]

        # Every server starts now and waits, idle, for its turn; each workload
        # then runs on each server in turn, so that a machine that slows down
        # or speeds up during the run affects every contender alike.
        contenders = []        # (name, server, measures RSS)
        for name, binary in darkrooms:
            extra = ["--memory-cache-mb", "64"] if supports(binary, "--memory-cache-mb") else []
            server = start_darkroom(binary, scratch, extra)
            servers.append(server)
            print(f"{name}: {binary} {' '.join(extra)}")
            contenders.append((name, server, True))
        thumbor = start_thumbor(scratch)
        servers.append(thumbor)
        contenders.append(("thumbor", thumbor, True))
        if os.path.exists(IMAGE_FILTER):
            body = (f"location /if/ {{ proxy_pass http://{o}/; image_filter resize {SIZE} {SIZE}; "
                    f"image_filter_jpeg_quality {QUALITY}; image_filter_buffer 100M; image_filter_interlace off; }}")
            flt = nginx("image-filter", scratch, body, workers=CORES, modules=[IMAGE_FILTER])
            servers.append(flt)
            contenders.append(("nginx image_filter", flt, False))
        for name, server, _ in contenders:
            fair[name] = fairness(server.port, templates[name].replace("{nonce}/{photo}", "fair/Dune.jpg"))

        for workload, photo_set, c in workloads:
            for name, server, measures in contenders:
                if name == "nginx image_filter" and photo_set in ("png", "webp"):
                    continue    # it writes the source's format, not JPEG
                cold(name, server.port, workload, sets[photo_set], c, pid=server.pid if measures else None)
        # Sepia's cost: the same request with and without it, back to back.
        for name, server, _ in contenders[:len(darkrooms)]:
            sepia = templates[name].replace(f"/q:{QUALITY}/", f"/q:{QUALITY}/sepia:0.8/")
            cold(name, server.port, "jpeg c=16 (paired)", sets["jpeg"], 16, pid=server.pid)
            cold(name, server.port, "jpeg+sepia c=16", sets["jpeg"], 16, pid=server.pid, template=sepia)
        for name, server, _ in contenders[len(darkrooms):]:
            server.stop()
            servers.remove(server)

        # Warm: one URL again and again; nginx serves the very bytes Darkroom answered.
        warm_paths = {}
        for name, server, _ in contenders[:len(darkrooms)]:
            warm_paths[name] = templates[name].replace("{nonce}/{photo}", "warm/Dune.jpg")
            c = http.client.HTTPConnection("127.0.0.1", server.port)
            c.request("GET", warm_paths[name])
            body = c.getresponse().read()
            c.close()
            if name == "darkroom":
                static_dir = os.path.join(scratch, "static")
                os.makedirs(static_dir)
                with open(os.path.join(static_dir, "warm.jpg"), "wb") as f:
                    f.write(body)
        static = nginx("static", scratch, f"location /static/ {{ alias {scratch}/static/; }}", workers=CORES)
        servers.append(static)
        warm = [(name, server.port, warm_paths[name]) for name, server, _ in contenders[:len(darkrooms)]]
        warm.append(("nginx static", static.port, "/static/warm.jpg"))
        for c in (2, 16):
            for name, port, path in warm:
                figures = wrk(port, c, args.seconds, path=path)
                results[(name, f"warm c={c}")] = figures
                print(f"  {name:20s} {'warm c=' + str(c):18s} {figures['rate']:8.1f} req/s  p99 {figures['p99']:8.2f} ms", flush=True)
        static.stop()
        servers.remove(static)

        # A cached image every 50 ms while 16 clients keep the cores busy.
        for name, server, _ in contenders[:len(darkrooms)]:
            holder = {}
            loader = threading.Thread(target=lambda: holder.update(wrk(server.port, 16, args.seconds, template=templates[name],
                                                                       photos=sets["jpeg"], scratch=scratch)))
            loader.start()
            time.sleep(1)
            latencies, skipped = probe(server.port, warm_paths[name], args.seconds - 2)
            loader.join()
            results[(name, "probe")] = {"p50": percentile(latencies, 50), "p99": percentile(latencies, 99),
                                        "max": max(latencies), "skipped": skipped, "count": len(latencies),
                                        "load_rate": holder.get("rate", 0)}
            print(f"  {name:20s} {'probe under load':18s} p50 {percentile(latencies, 50):.2f} ms  p99 {percentile(latencies, 99):.2f} ms"
                  f"  max {max(latencies):.1f} ms  skipped {skipped} of {len(latencies) + skipped}", flush=True)
            loaded = rss_kib(server.pid) / 1024
            time.sleep(10)
            results[(name, "rss after")] = {"loaded": loaded, "rested": rss_kib(server.pid) / 1024}
            server.stop()
            servers.remove(server)

        # In-process limits.
        for kind in ("pillow", "pyvips", "decode"):
            for workload, photo_set in (("jpeg", "jpeg"), ("large", "large"), ("png", "png"), ("webp", "webp")):
                if kind == "decode" and workload in ("png", "webp"):
                    continue
                rate = in_process_subprocess(kind, origin_dir, sets[photo_set], args.seconds)
                results[(kind, f"{workload} in-process")] = {"rate": rate}
                print(f"  {kind:20s} {workload + ' in-process':18s} {rate:8.1f} img/s", flush=True)

        table = report(results, fair, [n for n, _ in darkrooms])
        print(table)
        if not args.no_write:
            write_doc("servers", "\n".join(lines) + "\n" + table)
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


def report(results, fair, darkrooms):
    def rate(who, what):
        return results.get((who, what), {}).get("rate", 0)

    def ratio(a, b):
        return f"{a / b:.2f}x" if a and b else "-"

    out = ["", "What each server answered for the same request (checked before the ratios are quoted):", "",
           "| server | answer |", "|---|---|"]
    out += [f"| {name} | {answer} |" for name, answer in fair.items()]
    out += ["", "Cold (every request a new source URL), requests/s and p99:", ""]
    header = ["workload"] + darkrooms + ["thumbor", "nginx image_filter", "darkroom / thumbor"]
    if len(darkrooms) > 1:
        header.append("darkroom / before")
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for workload in ("jpeg c=2", "jpeg c=16", "large c=16", "png c=16", "webp c=16", "jpeg+sepia c=16"):
        row = [workload]
        for who in darkrooms + ["thumbor", "nginx image_filter"]:
            f = results.get((who, workload))
            row.append(f"{f['rate']:.1f} ({f['p99']:.0f} ms)" + (f", {f['non2xx']} errors" if f["non2xx"] else "") if f else "-")
        row.append(ratio(rate("darkroom", workload), rate("thumbor", workload)))
        if len(darkrooms) > 1:
            row.append(ratio(rate("darkroom", workload), rate("darkroom before", workload)))
        out.append("| " + " | ".join(row) + " |")
    out += ["", "In-process limits (2 threads, bytes in memory, no HTTP), images/s, and Darkroom's c=16 rate against them:", "",
            "| sources | Pillow draft + Lanczos | pyvips thumbnail | darkroom / Pillow | darkroom / pyvips |", "|---|---|---|---|---|"]
    for workload in ("jpeg", "large", "png", "webp"):
        p, v = rate("pillow", f"{workload} in-process"), rate("pyvips", f"{workload} in-process")
        d = rate("darkroom", f"{workload} c=16")
        out.append(f"| {workload} | {p:.1f} | {v:.1f} | {ratio(d, p)} | {ratio(d, v)} |")
    out += ["", "The JPEG ceiling: libjpeg decoding at the same DCT scale and nothing else (Pillow, 2 threads), and how close each server comes:", "",
            "| sources | decode only, img/s | darkroom / ceiling | thumbor / ceiling |", "|---|---|---|---|"]
    for workload in ("jpeg", "large"):
        c = rate("decode", f"{workload} in-process")
        out.append(f"| {workload} | {c:.1f} | {ratio(rate('darkroom', f'{workload} c=16'), c)} | {ratio(rate('thumbor', f'{workload} c=16'), c)} |")
    out += ["", "Warm (one URL again and again), requests/s and p99:", "",
            "| clients | " + " | ".join(darkrooms) + " | nginx static | darkroom / nginx |", "|---|" + "---|" * (len(darkrooms) + 2)]
    for c in (2, 16):
        row = [f"c={c}"]
        for who in darkrooms + ["nginx static"]:
            f = results.get((who, f"warm c={c}"))
            row.append(f"{f['rate']:.0f} ({f['p99']:.2f} ms)" if f else "-")
        row.append(ratio(rate("darkroom", f"warm c={c}"), rate("nginx static", f"warm c={c}")))
        out.append("| " + " | ".join(row) + " |")
    out += ["", "A cached image every 50 ms while 16 clients ask for cold work:", "",
            "| server | p50 | p99 | max | skipped | cold req/s meanwhile |", "|---|---|---|---|---|---|"]
    for who in darkrooms:
        f = results.get((who, "probe"))
        if f:
            out.append(f"| {who} | {f['p50']:.2f} ms | {f['p99']:.2f} ms | {f['max']:.1f} ms | {f['skipped']} of {f['count'] + f['skipped']} | {f['load_rate']:.1f} |")
    out += ["", "Memory (peak RSS while serving; darkroom with --memory-cache-mb 64 where it has the flag):", "",
            "| server | jpeg c=16 | large c=16 | after the probe's load | 10 s later |", "|---|---|---|---|---|"]
    for who in darkrooms + ["thumbor"]:
        j, l = results.get((who, "jpeg c=16"), {}), results.get((who, "large c=16"), {})
        after = results.get((who, "rss after"))
        rest = f"{after['loaded']:.0f} MiB | {after['rested']:.0f} MiB" if after else "- | -"
        out.append(f"| {who} | {j.get('peak_rss', 0):.0f} MiB | {l.get('peak_rss', 0):.0f} MiB | {rest} |")
    sepia = rate("darkroom", "jpeg+sepia c=16")
    plain = rate("darkroom", "jpeg c=16 (paired)")
    if sepia and plain:
        out += ["", f"Sepia's cost: jpeg c=16 with sepia:0.8 runs at {sepia / plain:.2f} of the rate without it, measured back to back "
                f"({sepia:.1f} and {plain:.1f} req/s)."]
    out += targets(results)
    return "\n".join(out) + "\n"


def targets(results):
    """The speed-and-memory targets, each as this run measured it."""
    def rate(who, what):
        return results.get((who, what), {}).get("rate", 0)

    def over(a, b):
        return a / b if a and b else 0

    rows = []

    def target(name, measured, met):
        rows.append(f"| {name} | {measured} | {'met' if met else '**not met**'} |")

    jpeg, pillow = over(rate("darkroom", "jpeg c=16"), rate("thumbor", "jpeg c=16")), over(rate("darkroom", "jpeg c=16"), rate("pillow", "jpeg in-process"))
    target("1. cold JPEG c=16: 1.5x thumbor and 1.0x Pillow in process", f"{jpeg:.2f}x thumbor, {pillow:.2f}x Pillow", jpeg >= 1.5 and pillow >= 1.0)
    large = over(rate("darkroom", "large c=16"), rate("thumbor", "large c=16"))
    ceiling = over(rate("darkroom", "large c=16"), rate("decode", "large in-process"))
    target("2. cold 12/18 MP c=16: 1.2x thumbor", f"{large:.2f}x (at {ceiling:.2f} of the decode-only ceiling)", large >= 1.2)
    png, webp = over(rate("darkroom", "png c=16"), rate("thumbor", "png c=16")), over(rate("darkroom", "webp c=16"), rate("thumbor", "webp c=16"))
    target("3. cold PNG and WebP c=16: 2x thumbor", f"PNG {png:.2f}x, WebP {webp:.2f}x", png >= 2 and webp >= 2)
    warm = results.get(("darkroom", "warm c=16"), {})
    ratio = over(warm.get("rate", 0), rate("nginx static", "warm c=16"))
    target("4. warm c=16: 0.5x nginx static, p99 under 3 ms", f"{ratio:.2f}x, p99 {warm.get('p99', 0):.2f} ms", ratio >= 0.5 and 0 < warm.get("p99", 99) < 3)
    probe = results.get(("darkroom", "probe"))
    if probe:
        target("5. a cached image every 50 ms under cold load: p99 under 5 ms, none skipped",
               f"p99 {probe['p99']:.2f} ms, {probe['skipped']} skipped", probe["p99"] < 5 and probe["skipped"] == 0)
    peak = results.get(("darkroom", "large c=16"), {}).get("peak_rss", 0)
    target("6. peak RSS in the 12/18 MP run, --memory-cache-mb 64: under 200 MiB", f"{peak:.0f} MiB (the soak: below)", 0 < peak < 200)
    sepia = over(rate("darkroom", "jpeg+sepia c=16"), rate("darkroom", "jpeg c=16 (paired)"))
    target("7. sepia costs at most 10%", f"{sepia:.2f} of the rate without it", sepia >= 0.9)
    return ["", "The targets, as this run measured them:", "", "| target | this run | |", "|---|---|---|"] + rows


def soak(args, scratch, o, sets):
    extra = ["--memory-cache-mb", "64"] if supports(args.darkroom, "--memory-cache-mb") else []
    server = start_darkroom(args.darkroom, scratch, extra)
    template = f"/img/_/rs:fit:{SIZE}:{SIZE}/q:{QUALITY}/plain/http://{o}/c/{{nonce}}/{{photo}}@jpg"
    print(f"soak: {args.soak} s of cold load at c=16 on darkroom {' '.join(extra)}", flush=True)
    try:
        # Quiet first, then the sampler and the load start together: the
        # first minute must be a minute of load.
        wait_for_quiet()
        with RSSSampler(server.pid) as sampler:
            figures = wrk(server.port, 16, args.soak, template=template, photos=sets["jpeg"] + sets["large"], scratch=scratch,
                          quiet_first=False)
        start = sampler.samples[0][0]
        first_minute = [kib for t, kib in sampler.samples if t - start <= min(60, args.soak / 10 + 1)]
        at_minute = first_minute[-1] / 1024
        at_end = sampler.samples[-1][1] / 1024
        time.sleep(10)
        rested = rss_kib(server.pid) / 1024
        mark = "after the first minute" if args.soak >= 600 else f"after the first {min(60, args.soak / 10 + 1):.0f} s"
        text = (f"Soak: {args.soak} s of cold load at c=16 (JPEG and 12/18 MP photos), {figures['rate']:.1f} req/s, "
                f"{figures['non2xx']} non-2xx answers.\n\n"
                f"| RSS {mark} | RSS at the end | end / first | 10 s after the load stopped | peak |\n|---|---|---|---|---|\n"
                f"| {at_minute:.0f} MiB | {at_end:.0f} MiB | {at_end / at_minute:.2f} | {rested:.0f} MiB | {sampler.peak_mib:.0f} MiB |\n\n"
                f"Target 6 (RSS at the end within 10% of RSS {mark}): {'met' if at_end <= at_minute * 1.1 else '**not met**'}; "
                f"10 s after the load, RSS is {at_end - rested:.0f} MiB below its level at the end.\n")
        print(text)
        if not args.no_write and args.soak >= 600:
            write_doc("soak", f"Date: {datetime.date.today()}, commit {commit()}, machine: {machine()}\n"
                              f"Command: `make soak` (python3 bench/servers.py --soak {args.soak})\n\n" + text)
    finally:
        server.stop()


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


if __name__ == "__main__":
    main()
