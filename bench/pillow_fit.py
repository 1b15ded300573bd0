"""Pillow fitting an image inside a box the way the benchmarks compare it:
the target size from the original's dimensions (as Darkroom's is), libjpeg's
DCT scaling to that size (`draft`), then Lanczos for what is left."""


def fitted_size(size, box):
    w0, h0 = size
    scale = min(box / w0, box / h0, 1)
    return max(1, round(w0 * scale)), max(1, round(h0 * scale))


def fit(im, box):
    """`im` fitted inside `box` x `box`, as RGB."""
    from PIL import Image
    size = fitted_size(im.size, box)
    im.draft("RGB", size)
    im = im.convert("RGB")
    if im.size != size:
        im = im.resize(size, Image.LANCZOS)
    return im
