// How the resampler works out each side and what it will hold: libvips'
// arithmetic, as plain values, before anything is allocated. Private to
// the resampler.
#ifndef DARKROOM_RESAMPLE_PLAN_H
#define DARKROOM_RESAMPLE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "darkroom_resample.h"

enum {
    DR_MAX_SIDE = 1 << 20,
    /// Rows lent at once.
    DR_MAX_LEND = 16,
    /// Bytes past every row that vector code may read or a decoder write.
    DR_SLACK = 64,
    /// libvips' sub-pixel steps for its mask tables (VIPS_TRANSFORM_SCALE).
    DR_MASK_STEPS = 64,
    /// Lanczos-3 after a box that leaves less than 4: at most 2 x 12 + 1.
    DR_MAX_POINTS = 25,
};

/// One side's arithmetic, as vips_reduceh / vips_reducev make it.
typedef struct {
    /// Input pixels on this side.
    int in_size;
    /// The box average's factor (1: none) and the size after it.
    int box;
    int mid_size;
    /// The scaled size.
    int out_size;
    /// Whether a Lanczos pass follows (0: the side is kept as it is).
    int reduce;
    /// Taps of the Lanczos pass (odd), and that rounded up to even.
    int points, taps;
    /// The outputs made, [first, first + count): the crop.
    int first, count;
    /// For each output made: its first tap, in the box's output (before
    /// the edge is extended, so it may be below 0 or run past the end),
    /// and its mask (0...MASK_STEPS).
    int *start;
    uint8_t *mask;
    /// The masks, MASK_STEPS + 1 of them, `taps` weights each.
    int16_t masks[DR_MASK_STEPS + 1][DR_MAX_POINTS + 1];
} axis_plan;

/// Plans both sides of `spec` (no window yet); -1 when it is out of range.
int dr_plan_sides(const dr_resample_spec *spec, axis_plan *down, axis_plan *across);

/// The outputs [first, first + count) of a planned side: each one's first
/// tap and mask, from the same scale as the side was planned with.
/// Returns -1 when memory is short.
int dr_plan_window(axis_plan *a, int first, int count, double scale);

void dr_plan_free(axis_plan *a);

/// The inputs (after the box) that a side's window reads, clamped.
void dr_plan_inputs_read(const axis_plan *a, int *low, int *high);

/// The columns after the horizontal box that the kept outputs read,
/// before the edges are clamped: [first, first + count).
void dr_plan_padded_span(const axis_plan *across, int crop_left, int crop_width, int *first, int *count);

/// Every size the resampler allocates, for dr_resampler_bytes and for
/// dr_resampler_new alike.
typedef struct {
    size_t ring, staging, sums, row_pointers, column, padded, across, pairs, result, tables, total;
} dr_layout;

void dr_plan_layout(const dr_resample_spec *spec, const axis_plan *down, const axis_plan *across, int pairs,
                    int padded_count, int padded_bands, dr_layout *l);

#endif
