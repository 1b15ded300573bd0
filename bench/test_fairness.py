"""The servers' benchmark quotes a ratio only between answers that are the
same work. These checks make answers that differ in one way each (size,
chroma subsampling, JPEG quality, format) and expect the like-for-like
check to refuse them, and the same answer from two encoders to pass.

    .venv/bin/python bench/test_fairness.py
"""
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from PIL import Image  # noqa: E402

import answers  # noqa: E402
from report import STRONGER, Report  # noqa: E402
from rounds import Rounds  # noqa: E402


def photo(width=512, height=320):
    image = Image.new("RGB", (width, height))
    image.putdata([((x * 7) % 256, (y * 5) % 256, (x + y) % 256) for y in range(height) for x in range(width)])
    return image


def encoded(image, fmt, **options):
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


class LikeForLike(unittest.TestCase):
    def setUp(self):
        self.reference = answers.describe(encoded(photo(), "JPEG", quality=80, subsampling=2, optimize=True))

    def test_the_same_answer_passes(self):
        # Another resampler's pixels: a few differ, the bytes a little.
        image = photo()
        for x in range(0, 512, 64):
            image.putpixel((x, 100), (255, 255, 255))
        again = answers.describe(encoded(image, "JPEG", quality=80, subsampling=2, optimize=True))
        self.assertNotEqual(again["bytes"], self.reference["bytes"])
        self.assertTrue(answers.same_work(self.reference, again))

    def test_answers_far_apart_in_bytes_are_refused(self):
        # The same format, size, chroma and tables, but much more to code:
        # as two encoders' "quality 63" can be.
        image = photo()
        image.putdata([((x * 37 + y * 91) % 256, (x * y) % 256, (x ^ y) % 256) for y in range(320) for x in range(512)])
        noisy = answers.describe(encoded(image, "JPEG", quality=80, subsampling=2, optimize=True))
        self.assertEqual(noisy["tables"], self.reference["tables"])
        self.assertFalse(answers.same_work(self.reference, noisy))

    def test_each_difference_is_refused(self):
        different = {
            "size": encoded(photo(500, 320), "JPEG", quality=80, subsampling=2),
            "chroma": encoded(photo(), "JPEG", quality=80, subsampling=0),
            "quality": encoded(photo(), "JPEG", quality=70, subsampling=2),
            "format": encoded(photo(), "WEBP", quality=80),
            "an error": b"HTTP 500",
        }
        for name, body in different.items():
            with self.subTest(name):
                self.assertFalse(answers.same_work(self.reference, answers.describe(body)), name)

    def test_no_ratio_against_a_mismatched_peer(self):
        fair = {"jpeg c=16": {
            "darkroom": self.reference,
            "thumbor x1": answers.describe(encoded(photo(), "JPEG", quality=80, subsampling=2, optimize=True)),
            "thumbor x2": answers.describe(encoded(photo(), "JPEG", quality=90, subsampling=2, optimize=True)),
        }}
        report = Report(None, fair, ["darkroom"], ["thumbor x1", "thumbor x2"], ["jpeg c=16"], [])
        self.assertTrue(report.comparable("jpeg c=16", "thumbor x1"))
        self.assertFalse(report.comparable("jpeg c=16", "thumbor x2"))
        # The stronger thumbor counts only when every thumbor did the same work.
        self.assertFalse(report.comparable("jpeg c=16", STRONGER))
        self.assertEqual(report.ratio("darkroom", "thumbor x2", "jpeg c=16"), ("answers differ", None))
        # A workload the run left out is said to be, not to differ.
        self.assertEqual(report.ratio("darkroom", "thumbor x1", "avif c=16"), ("not measured", None))

    def test_the_hits_target_reads_the_warm_runs(self):
        results = Rounds()
        for darkroom, nginx in ((50_000, 70_000), (60_000, 60_000), (40_000, 80_000)):
            results.start_round()
            results.add("darkroom", "warm c=16", {"rate": darkroom})
            results.add("nginx static", "warm c=16", {"rate": nginx})
        report = Report(results, {}, ["darkroom"], ["thumbor x1", "thumbor x2"], ["jpeg c=16"], [])
        text, value = report.ratio("darkroom", "nginx static", "warm c=16")
        self.assertAlmostEqual(value, 50_000 / 70_000)
        self.assertTrue(text.startswith("0.71x (0.50-1.00)"), text)

    def test_the_mix_target_reads_the_mix_rounds(self):
        def target_row(report):
            lines = [line for line in report.targets() if line.startswith("| 8.")]
            self.assertEqual(len(lines), 1, report.targets())
            return lines[0]

        report = Report(Rounds(), {}, ["darkroom"], ["thumbor x1", "thumbor x2"], ["jpeg c=16"], [])
        self.assertTrue(target_row(report).endswith("| not in this run | not measured |"), target_row(report))
        mix = Rounds()
        for darkroom, thumbor, p99s in ((700, 600, (400, 450)), (3300, 1000, (400, 500)), (3200, 1000, (300, 500))):
            mix.start_round()
            mix.add("darkroom", "mix", {"rate": darkroom, "p99": p99s[0]})
            mix.add("thumbor", "mix", {"rate": thumbor, "p99": p99s[1]})
        report = Report(Rounds(), {}, ["darkroom"], ["thumbor x1", "thumbor x2"], ["jpeg c=16"], [], mix=mix)
        self.assertIn("throughput 3.20x (1.17-3.30), p99 0.80x (0.60-0.89)", target_row(report))
        self.assertTrue(target_row(report).endswith("| met |"), target_row(report))
        # A p99 above thumbor's fails the target, whatever the throughput.
        mix.rounds[1][("darkroom", "mix")]["p99"] = 600
        mix.rounds[2][("darkroom", "mix")]["p99"] = 600
        self.assertTrue(target_row(report).endswith("| **not met** |"), target_row(report))
        # So does a throughput under 3x at a lower p99.
        for figures in mix.rounds:
            figures[("darkroom", "mix")].update(rate=2900, p99=300)
        self.assertIn("throughput 2.90x", target_row(report))
        self.assertTrue(target_row(report).endswith("| **not met** |"), target_row(report))


class RawFigures(unittest.TestCase):
    """A run's raw figures are kept, round by round, and its tables are
    rendered from them: the same text from the file as from the run."""

    def test_the_tables_are_rendered_from_the_saved_run(self):
        import tempfile
        from report import render, save_run
        from rounds import Failed
        results = Rounds()
        for darkroom, thumbor, failed in ((120, 60, False), (130, 58, True)):
            results.start_round()
            results.add("darkroom", "jpeg c=16", {"rate": darkroom, "p99": 40.0, "cpu_ms": 1000 / darkroom * 2})
            results.add("thumbor x1", "jpeg c=16", Failed("3 non-2xx") if failed else {"rate": thumbor, "cpu_ms": 33.0})
            results.add("thumbor x2", "jpeg c=16", {"rate": thumbor, "cpu_ms": 1000 / thumbor * 2})
            results.add("floor", "jpeg", {"rate": 120, "decode_at_scale": 7.0, "decode_encode_optimised": 8.0})
        reference = answers.describe(encoded(photo(), "JPEG", quality=80, subsampling=2, optimize=True))
        fair = {"jpeg c=16": {"darkroom": reference, "thumbor x1": reference, "thumbor x2": reference}}
        with tempfile.TemporaryDirectory() as folder:
            path = save_run(folder, ["Machine: test", ""], results, fair, ["darkroom"], ["thumbor x1", "thumbor x2"],
                            ["jpeg c=16"], [])
            heading, text = render(path)
        self.assertIn("Raw figures: bench/results/servers-", heading)
        # CPU an answer, and the stronger thumbor's against darkroom's.
        self.assertIn("| jpeg c=16 | 16.03 (15.38-16.67) | failed | 33.91 (33.33-34.48) | - | failed |", text)
        # darkroom's CPU against the floor's 8.0 ms.
        self.assertIn("| jpeg c=16 | 7.00 (7.00-7.00) | 8.00 (8.00-8.00) | 16.03 (15.38-16.67) | 2.00x (1.92-2.08) |", text)
        # A failed round stays failed through the file.
        self.assertIn("CPU 2.00x (1.92-2.08) the floor; thumbor failed | **not met** |", text)


if __name__ == "__main__":
    unittest.main()
