"""The origin's files, made from the corpus photos with `vips`: the JPEGs,
12 and 18 megapixel versions of four, and PNG, WebP (lossy and lossless),
AVIF and HEIC versions of every photo."""
import collections
import os
import shutil
import struct
import subprocess
import zlib

from peers import CORES

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.environ.get("DARKROOM_CORPUS", os.path.join(HERE, "..", "..", "shared", "corpus"))


def vips(*args):
    subprocess.run(["vips", *args], check=True, capture_output=True, env=dict(os.environ, VIPS_CONCURRENCY=str(CORES)))


def header_size(path):
    def field(name):
        return int(subprocess.run(["vipsheader", "-f", name, path], capture_output=True, text=True, check=True).stdout)
    return field("width"), field("height")


def png_row_filters(path):
    """How many rows of a PNG use each row filter (0 none ... 4 Paeth)."""
    with open(path, "rb") as f:
        data = f.read()
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, colour = header[:4]
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
    stride = (width * channels * depth + 7) // 8 + 1
    raw = zlib.decompress(idat)
    return collections.Counter(raw[row * stride] for row in range(height))


def make_sources(scratch, notes, other_formats=True):
    """The origin's folder and its sets of file names; other_formats: also
    the PNG, WebP, AVIF and HEIC versions. Anything the installed libvips
    cannot write is left out, with a line in `notes`."""
    origin = os.path.join(scratch, "origin")
    os.makedirs(origin)
    folder = os.path.join(CORPUS, "photos")
    photos = sorted(f for f in os.listdir(folder) if f.endswith(".jpg"))
    for name in photos:
        shutil.copy(os.path.join(folder, name), origin)
    sets = {"jpeg": photos, "large": [], "png": [], "webp": [], "webp-lossless": [], "avif": [], "heic": []}

    for name in photos[:4]:
        src = os.path.join(origin, name)
        w, h = header_size(src)
        for mp in (12, 18):
            out = f"{name[:-4]}-{mp}mp.jpg"
            vips("resize", src, os.path.join(origin, out) + "[Q=90]", f"{(mp * 1e6 / (w * h)) ** 0.5:.4f}")
            sets["large"].append(out)

    # libvips writes PNG without row filters unless asked; encoders that
    # care about size (libpng's default, optipng, browsers' canvas) choose
    # a filter per row, which costs the decoder more.
    kinds = [("png", ".png", "[filter=all]"),
             ("webp", ".webp", "[Q=90]"),
             ("webp-lossless", "-lossless.webp", "[lossless]"),
             ("avif", ".avif", "[Q=70,effort=2]"),
             ("heic", ".heic", "[compression=hevc,Q=70]")]
    for kind, suffix, options in kinds if other_formats else []:
        try:
            for name in photos:
                out = name[:-4] + suffix
                vips("copy", os.path.join(origin, name), os.path.join(origin, out) + options)
                sets[kind].append(out)
        except subprocess.CalledProcessError as error:
            sets[kind] = []
            notes.append(f"No {kind} sources: this libvips cannot write them ({error.stderr.decode().strip()[:120]}); "
                         f"the {kind} workload is left out.")
    if sets["png"]:
        filters = png_row_filters(os.path.join(origin, sets["png"][0]))
        if set(filters) <= {0}:
            raise SystemExit("the PNG sources came out without row filters")
    return origin, sets
