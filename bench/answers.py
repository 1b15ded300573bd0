"""What a server answered, read from the bytes: the format, pixel size,
chroma subsampling and JPEG quantisation tables that must match before two
servers' rates are compared, and for information JPEG's Huffman tables
(made for the image, or the standard's that libjpeg writes unless asked:
shown, not compared, as a side that cannot be asked would be refused), WebP's
lossy or lossless coding, AVIF's bit depth and range, and the bytes, which
must be within SIZE_BAND of each other: the same quality number on two
encoders is not the same quality, so where they differ the benchmark asks
the peer for the quality whose answer has darkroom's bytes (bench/servers.py
says which it set)."""
import http.client
import io

SIZE_BAND = 0.05    # answers' bytes within 5% of each other


def fetch(port, path, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


def _avif_facts(body):
    """Chroma subsampling and bit depth from the av1C box, range from colr."""
    facts = {}
    at = body.find(b"av1C")
    if at >= 0 and len(body) >= at + 7:
        b = body[at + 6]
        mono, sx, sy = b >> 4 & 1, b >> 3 & 1, b >> 2 & 1
        facts["subsampling"] = "4:0:0" if mono else {(1, 1): "4:2:0", (1, 0): "4:2:2", (0, 0): "4:4:4"}.get((sx, sy), "?")
        facts["depth"] = 12 if b >> 5 & 1 else 10 if b >> 6 & 1 else 8
    at = body.find(b"colrnclx")
    if at >= 0 and len(body) >= at + 15:
        facts["range"] = "full" if body[at + 14] >> 7 else "limited"
    return facts


def _webp_coding(body):
    """The first image chunk's kind: VP8 (lossy) or VP8L (lossless)."""
    pos = 12
    while pos + 8 <= len(body):
        kind, size = body[pos:pos + 4], int.from_bytes(body[pos + 4:pos + 8], "little")
        if kind in (b"VP8 ", b"VP8L"):
            return kind
        pos += 8 + size + (size & 1)
    return None


STANDARD_LUMA_DC = bytes([0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0])


def _jpeg_huffman(body):
    """"optimised" when the luminance DC table is not the JPEG standard's
    example table (what libjpeg writes unless asked to optimise), else
    "standard"."""
    at = 2
    while at + 4 <= len(body) and body[at] == 0xFF and body[at + 1] != 0xDA:
        length = body[at + 2] << 8 | body[at + 3]
        if body[at + 1] == 0xC4:
            table = at + 4
            while table + 17 <= at + 2 + length:
                counts = body[table + 1:table + 17]
                if body[table] == 0x00:
                    return "standard" if counts == STANDARD_LUMA_DC else "optimised"
                table += 17 + sum(counts)
        at += 2 + length
    return "?"


def describe(body):
    """A dict: format, width, height, subsampling, and a line to print."""
    from PIL import Image, JpegImagePlugin
    try:
        im = Image.open(io.BytesIO(body))
    except Exception as error:     # noqa: BLE001 - any unreadable answer is reported as such
        return {"format": "unreadable", "width": 0, "height": 0, "subsampling": "", "line": f"unreadable ({error})"}
    fmt, (w, h) = im.format, im.size
    sub, extra, tables = "", "", None
    if fmt == "JPEG":
        sub = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}.get(JpegImagePlugin.get_sampling(im), "?")
        tables = [list(t) for _, t in sorted(im.quantization.items())]
        extra = (f" luma-qtable-sum={sum(tables[0])} {'progressive' if im.info.get('progressive') else 'baseline'}"
                 f" huffman-{_jpeg_huffman(body)}")
    elif fmt == "WEBP":
        sub = "lossless" if _webp_coding(body) == b"VP8L" else "4:2:0"
    elif fmt == "AVIF":
        facts = _avif_facts(body)
        sub = facts.get("subsampling", "?")
        extra = f" {facts.get('depth', '?')}-bit {facts.get('range', '?')}-range"
    line = f"{fmt} {w}x{h} {sub}{extra}, {len(body):,} B"
    return {"format": fmt, "width": w, "height": h, "subsampling": sub, "tables": tables, "bytes": len(body), "line": line}


def same_work(a, b):
    """Whether two answers are the same work: format, size, subsampling,
    for JPEG the quantisation tables (the quality), and bytes within
    SIZE_BAND."""
    keys = ("format", "width", "height", "subsampling", "tables")
    return all(a.get(k) == b.get(k) for k in keys) and a["format"] != "unreadable" and close_in_size(a, b)


def close_in_size(a, b):
    x, y = a.get("bytes"), b.get("bytes")
    return bool(x) and bool(y) and abs(x - y) <= SIZE_BAND * max(x, y)


def answer(port, path, headers=None):
    status, body = fetch(port, path, headers)
    if status != 200:
        return {"format": f"HTTP {status}", "width": 0, "height": 0, "subsampling": "",
                "line": f"HTTP {status}: {body[:80]!r}"}
    return describe(body)
