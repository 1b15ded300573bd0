#!/usr/bin/env python3
"""Photos with faces at known places and sizes, for the face detector's
recall table (docs/benchmarks.md).

The face is Tests/Fixtures/face.jpg cut to the 200 x 200 around its face
(whose box is about 91 x 90 pixels), scaled so the face is W pixels wide
and pasted three times, apart, into a corpus photo scaled to a longer side of L pixels, for
every W of FACE_SIZES and L of PHOTO_SIDES. Writes the JPEGs and a JSON
list of where each face is to OUT.

    bench/face_composites.py OUT [PHOTO]
"""
import json
import os
import random
import subprocess
import sys
import tempfile

FACE_SIZES = [40, 55, 70, 100, 150, 250, 400]
PHOTO_SIDES = [2000, 2560, 4000, 6000]
CUT = (121, 22, 200, 200)  # the square around the face in face.jpg
FACE_BOX = (55, 55, 91, 90)  # left, top, width, height in that square
HERE = os.path.dirname(os.path.abspath(__file__))
FACE = os.path.join(HERE, "..", "Tests", "Fixtures", "face.jpg")


def vips(*args):
    subprocess.run(["vips", *map(str, args)], check=True, stdout=subprocess.DEVNULL)


def size(path):
    out = subprocess.run(["vipsheader", "-f", "width", path], check=True, capture_output=True, text=True).stdout
    height = subprocess.run(["vipsheader", "-f", "height", path], check=True, capture_output=True, text=True).stdout
    return int(out), int(height)


def main():
    out = sys.argv[1]
    photo = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "shared", "corpus", "photos", "Garden.jpg")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(2026)
    cases = []
    with tempfile.TemporaryDirectory() as scratch:
        cut = os.path.join(scratch, "cut.v")
        vips("crop", FACE, cut, *CUT)
        for side in PHOTO_SIDES:
            w, h = size(photo)
            base = os.path.join(scratch, f"base{side}.v")
            vips("resize", photo, base, side / max(w, h))
            bw, bh = size(base)
            for face in FACE_SIZES:
                scale = face / FACE_BOX[2]
                patch = os.path.join(scratch, f"face{face}.v")
                vips("resize", cut, patch, scale)
                pw, ph = size(patch)
                if 3 * pw > bw or ph > bh:
                    continue
                current = base
                boxes = []
                # Three apart: one in each third of the width.
                for third in range(3):
                    x = rng.randint(third * bw // 3, (third + 1) * bw // 3 - pw)
                    y = rng.randint(0, bh - ph)
                    nxt = os.path.join(scratch, f"c{side}-{face}-{third}.v")
                    vips("insert", current, patch, nxt, x, y)
                    current = nxt
                    boxes.append({"left": x + round(FACE_BOX[0] * scale), "top": y + round(FACE_BOX[1] * scale),
                                  "width": round(FACE_BOX[2] * scale), "height": round(FACE_BOX[3] * scale)})
                name = f"faces-{face}px-in-{side}.jpg"
                vips("copy", current, os.path.join(out, name) + "[Q=92]")
                cases.append({"file": name, "width": bw, "height": bh, "face": face, "faces": boxes})
    with open(os.path.join(out, "faces.json"), "w") as f:
        json.dump(cases, f, indent=1)


if __name__ == "__main__":
    main()
