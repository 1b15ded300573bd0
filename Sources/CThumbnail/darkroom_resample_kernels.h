// The resampler's inner loops, in three sets that give the same bytes:
// plain C, SSE2 and AVX2. Private to the resampler.
#ifndef DARKROOM_RESAMPLE_KERNELS_H
#define DARKROOM_RESAMPLE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "darkroom_resample.h"

// libvips' fixed point for 8-bit pixels: weights with 12 fractional bits,
// sums rounded by adding half and shifting.
enum { DR_PRECISION = 12, DR_HALF = 1 << (DR_PRECISION - 1) };

/// Down: out[x] = clip((half + sum over i of rows[i][x] * w[i]) >> 12) for
/// `length` bytes. `count` is even (a padding tap has weight 0 and a row
/// that exists). The vector versions write up to 31 bytes past `length`
/// and read as far past each row: every buffer has that slack.
typedef void (*dr_down_kernel)(const uint8_t *const *rows, const int16_t *w, int count, uint8_t *out, size_t length);

/// Across: one row of pixels (`bands` bytes each, 3 or 4) to `outputs`
/// RGBX pixels; output x is the weighted sum of the `points` pixels from
/// `start[x]` on.
typedef struct {
    int outputs;
    int points;
    const int *start;
    /// `taps` weights for each output (taps: points rounded up to even,
    /// zero-padded).
    const int16_t *weights;
    int taps;
    /// The same weights laid out for the AVX2 kernel: for each pair of
    /// outputs, for each group of four taps, two vectors (taps 0-1 and 2-3
    /// of the group), the pair's first output in the low lane.
    const int16_t *pair_weights;
    int groups;
    int bands;
} dr_across_plan;

typedef void (*dr_across_kernel)(const uint8_t *in, uint8_t *out, const dr_across_plan *plan);

typedef struct {
    dr_down_kernel down;
    dr_across_kernel across;
    /// Whether the across kernel wants pair_weights.
    int wants_pairs;
    /// Whether the across kernel reads 3-byte pixels as they are; if not,
    /// it is given RGBX.
    int reads_rgb;
} dr_kernel_set;

/// The kernels for `which` (DR_KERNELS_BEST: the best the processor has,
/// unless DARKROOM_RESAMPLE_NO_AVX2 is set); 0 when the processor lacks
/// them.
int dr_kernel_set_for(dr_kernels which, dr_kernel_set *set);

#endif
