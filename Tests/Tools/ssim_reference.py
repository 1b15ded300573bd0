"""Prints scikit-image's SSIM of pairs of 8-bit grey images, one line each.

Usage: ssim_reference.py WIDTH HEIGHT A B [A B ...], each file the raw
samples row by row. The settings are Wang et al.'s, which Darkroom uses:
Gaussian weights of sigma 1.5, population statistics, a range of 255.
"""
import sys

import numpy as np
from skimage.metrics import structural_similarity

width, height = int(sys.argv[1]), int(sys.argv[2])
files = sys.argv[3:]
for a, b in zip(files[0::2], files[1::2]):
    first = np.fromfile(a, dtype=np.uint8).reshape(height, width).astype(np.float64)
    second = np.fromfile(b, dtype=np.uint8).reshape(height, width).astype(np.float64)
    value = structural_similarity(first, second, gaussian_weights=True, sigma=1.5,
                                  use_sample_covariance=False, data_range=255)
    print(f"{value:.9f}")
