"""Work without HTTP, from bytes in memory, on as many threads as there are
cores: Pillow and pyvips making the same answers as the servers, Pillow's
draft decode, and the floor of a cold JPEG answer (bench/jpeg_floor.c:
libjpeg-turbo's decode at the shrink-on-load scale and the answer's
write, on one pinned core)."""
import concurrent.futures
import io
import os
import subprocess
import sys
import time

import pillow_fit
from peers import CORES, QUALITY, SIZE, VENV

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(kind, answer):
    """One image's work for `kind` (pillow, pyvips, draft), writing `answer`
    (jpeg, webp, avif) with the servers' encoder settings."""
    if kind == "draft":
        from PIL import Image

        def one(data):
            # libjpeg's decode at the DCT scale every server uses, and nothing else.
            with Image.open(io.BytesIO(data)) as im:
                im.draft("RGB", pillow_fit.fitted_size(im.size, SIZE))
                im.load()
        return one
    if kind == "pillow":
        from PIL import Image
        try:
            import pillow_heif
            pillow_heif.register_heif_opener()
        except ImportError:
            pass
        options = {"jpeg": ("JPEG", {"quality": QUALITY["jpeg"], "subsampling": "4:2:0"}),
                   "webp": ("WEBP", {"quality": QUALITY["webp"], "method": 4}),
                   "avif": ("AVIF", {"quality": QUALITY["avif"], "speed": 8, "subsampling": "4:2:0", "codec": "aom"})}
        fmt, settings = options[answer]

        def one(data):
            with Image.open(io.BytesIO(data)) as im:
                im = pillow_fit.fit(im, SIZE)
                out = io.BytesIO()
                im.save(out, fmt, **settings)
                return out.getvalue()
        return one
    import pyvips
    pyvips.cache_set_max(0)
    save = {"jpeg": lambda im: im.jpegsave_buffer(Q=QUALITY["jpeg"], strip=True),
            "webp": lambda im: im.webpsave_buffer(Q=QUALITY["webp"], effort=4, strip=True),
            "avif": lambda im: im.heifsave_buffer(Q=QUALITY["avif"], compression="av1", effort=1, bitdepth=8,
                                                  subsample_mode="auto", strip=True)}[answer]

    def one(data):
        return save(pyvips.Image.thumbnail_buffer(data, SIZE, height=SIZE, size="down"))
    return one


def in_process(kind, answer, origin, names, seconds):
    """Images per second on CORES threads."""
    blobs = [open(os.path.join(origin, n), "rb").read() for n in names]
    one = worker(kind, answer)
    done = 0
    deadline = time.perf_counter() + seconds
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(CORES) as pool:
        while time.perf_counter() < deadline:
            list(pool.map(one, blobs))
            done += len(blobs)
    return done / (time.perf_counter() - start)


def in_process_subprocess(kind, answer, origin, names, seconds):
    """in_process in a fresh interpreter; None when it fails twice."""
    python = os.path.join(VENV, "bin", "python")
    code = (f"import sys; sys.path.insert(0, {HERE!r}); import inprocess; "
            f"print(inprocess.in_process({kind!r}, {answer!r}, {origin!r}, {names!r}, {seconds}))")
    env = dict(os.environ, VIPS_CONCURRENCY="1")
    # pyvips with threads has been seen to crash in libvips' allocator now
    # and then; a crashed run is said and run again, once.
    for _ in range(2):
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env)
        if out.returncode == 0:
            return float(out.stdout.strip().splitlines()[-1])
        print(f"  {kind} in-process run failed (exit {out.returncode}): {out.stderr.strip()[-200:]}", file=sys.stderr)
    return None


def build_jpeg_floor(scratch):
    """bench/jpeg_floor.c, compiled into `scratch`."""
    binary = os.path.join(scratch, "jpeg_floor")
    heif = subprocess.run(["pkg-config", "--cflags", "--libs", "libheif"], capture_output=True, text=True, check=True).stdout.split()
    subprocess.run(["cc", "-O2", "-o", binary, os.path.join(HERE, "jpeg_floor.c"), "-ljpeg", "-lwebp", *heif], check=True)
    return binary


def jpeg_floor(binary, origin, names, rounds=5, core=CORES - 1, encoders=True):
    """The floors of a cold answer from these JPEG sources, CPU ms an image
    on one core: decode_at_scale, decode_encode (the standard Huffman
    tables), decode_encode_optimised (tables made for the image, as every
    server here writes them), decode_encode_webp and decode_encode_avif
    (the answer written as WebP or AVIF at the servers' settings, unless
    `encoders` is false); None if it failed."""
    from peers import AVIF_SPEED
    others = ["--webp", str(QUALITY["webp"]), "--avif", str(QUALITY["avif"]), str(AVIF_SPEED)] if encoders else []
    out = subprocess.run([binary, str(core), str(SIZE), str(QUALITY["jpeg"]), str(rounds), *others,
                          *(os.path.join(origin, n) for n in names)], capture_output=True, text=True)
    if out.returncode != 0:
        print(f"  the JPEG floor failed: {out.stderr.strip()[-200:]}", file=sys.stderr)
        return None
    return {k: float(v) for k, v in (line.split() for line in out.stdout.splitlines())}
