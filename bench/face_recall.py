#!/usr/bin/env python3
"""The face detector's recall, precision and time on the photos
bench/face_composites.py made, through a running server's /info with do:1.

    bench/face_recall.py BASE FOLDER [ROUNDS]

BASE is the server (http://127.0.0.1:PORT) serving FOLDER as local:///.
A face counts as found when a detected box's centre lies in its box; a box
that holds no face is a false one. Prints a Markdown table by face size, and
the median time per megapixel over ROUNDS (3) rounds.
"""
import json
import statistics
import sys
import time
import urllib.request


def main():
    base, folder = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    cases = json.load(open(f"{folder}/faces.json"))
    by_size = {}
    per_mp = []
    for case in cases:
        times = []
        for round_ in range(rounds):
            started = time.monotonic()
            # A new cache buster each round: measured, not answered from the cache.
            with urllib.request.urlopen(f"{base}/info/_/do:1/cb:{round_}-{time.time()}/plain/local:///{case['file']}") as answer:
                info = json.load(answer)
            times.append(time.monotonic() - started)
        w, h = case["width"], case["height"]
        boxes = [(o["left"] * w, o["top"] * h, o["width"] * w, o["height"] * h) for o in info.get("objects", []) if o["class_name"] == "face"]
        found = 0
        used = set()
        for face in case["faces"]:
            for i, (x, y, bw, bh) in enumerate(boxes):
                cx, cy = x + bw / 2, y + bh / 2
                if i not in used and face["left"] <= cx <= face["left"] + face["width"] and face["top"] <= cy <= face["top"] + face["height"]:
                    found += 1
                    used.add(i)
                    break
        row = by_size.setdefault(case["face"], {})
        row[max(w, h)] = (found, len(case["faces"]), len(boxes) - len(used))
        per_mp.append(statistics.median(times) / (w * h / 1e6))
    sides = sorted({side for row in by_size.values() for side in row})
    print("| face (px) | " + " | ".join(f"in {side} px" for side in sides) + " | recall | false boxes |")
    print("|---" * (len(sides) + 3) + "|")
    for size in sorted(by_size):
        row = by_size[size]
        cells = [f"{row[side][0]}/{row[side][1]} ({size / side:.1%})" if side in row else "" for side in sides]
        found, faces, false = (sum(v[i] for v in row.values()) for i in range(3))
        print(f"| {size} | " + " | ".join(cells) + f" | {found / faces:.0%} | {false} |")
    print(f"\n/info with do:1: median {statistics.median(per_mp):.3f} s a megapixel (min {min(per_mp):.3f}, max {max(per_mp):.3f})")


if __name__ == "__main__":
    main()
