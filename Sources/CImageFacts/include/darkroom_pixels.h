#ifndef DARKROOM_PIXELS_H
#define DARKROOM_PIXELS_H

#include <stddef.h>
#include <stdint.h>

/// Multiplies the first three bands of each of `count` 8-bit pixels,
/// `stride` bytes apart (3 or 4), by a 3x3 matrix (row-major), in 16.16
/// fixed point: each entry rounded to nearest, each result rounded to
/// nearest and clipped to 0...255; any fourth band is left as it is. Both
/// engines' sepia and in-memory recombinations are this one loop.
void dr_recombine(uint8_t *pixels, size_t count, int stride, const double matrix[9]);

#endif
