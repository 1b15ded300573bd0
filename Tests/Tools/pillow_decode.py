"""Decodes an image file with Pillow, an independent reader, and prints what
a test checks as one JSON object: the format Pillow recognised, the size,
the mode, and the pixels at the points given as X,Y arguments.

    pillow_decode.py FILE [X,Y ...]
"""
import json
import sys

from PIL import Image

with Image.open(sys.argv[1]) as image:
    image.load()
    answer = {
        "format": image.format,
        "width": image.width,
        "height": image.height,
        "mode": image.mode,
        "pixels": [],
    }
    for point in sys.argv[2:]:
        x, y = (int(v) for v in point.split(","))
        value = image.getpixel((x, y))
        answer["pixels"].append(list(value) if isinstance(value, tuple) else [value])
print(json.dumps(answer))
