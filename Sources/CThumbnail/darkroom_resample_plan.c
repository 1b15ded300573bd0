#include "darkroom_resample_plan.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "darkroom_resample_kernels.h"

// MARK: - One side

static double sinc(double x) {
    if (x == 0.0) return 1.0;
    x *= 3.14159265358979323846;
    return sin(x) / x;
}

static double lanczos3(double x) {
    return x >= -3 && x <= 3 ? sinc(x) * sinc(x / 3) : 0.0;
}

/// libvips' mask for a sub-pixel offset `x` (0...1) at reduction `shrink`:
/// normalised in double, then cut to 12 bits towards zero, as it does.
static void make_mask(int16_t *mask, int points, double shrink, double x) {
    double c[DR_MAX_POINTS], sum = 0;
    double half = x + points / 2.0 - 1;
    for (int i = 0; i < points; i++) {
        c[i] = lanczos3((i - half) / shrink);
        sum += c[i];
    }
    for (int i = 0; i < points; i++) mask[i] = (int16_t)(c[i] / sum * (1 << DR_PRECISION));
}

/// The scaled size of a side, and where its box and Lanczos passes stand;
/// no output window yet. Returns -1 when out of range.
static int plan_side(axis_plan *a, int in_size, double scale) {
    memset(a, 0, sizeof(*a));
    if (in_size < 1 || in_size > DR_MAX_SIDE || !(scale > 0) || scale > 1) return -1;
    a->in_size = in_size;
    a->box = 1;
    a->mid_size = in_size;
    a->out_size = in_size;
    if (scale == 1.0) return 0;
    // vips_resize: neither side below one pixel.
    if (scale < 1.0 / in_size) scale = 1.0 / in_size;
    double shrink = 1.0 / scale;
    // vips_reduce: round to nearest, and centre what is invented or dropped.
    int out = (int)(in_size / shrink + 0.5);
    if (out < 1 || out > DR_MAX_SIDE) return -1;
    double extra = out * shrink - in_size;
    // The gap of 2: a box by the integer part that leaves at least 2.
    int box = (int)floor((double)in_size / out / 2.0);
    if (box < 1) box = 1;
    if (box > 1) {
        a->box = box;
        a->mid_size = (in_size + box - 1) / box;
        shrink /= box;
        extra /= box;
    }
    a->out_size = out;
    if (shrink == 1.0) {
        a->out_size = a->mid_size;
        return 0;
    }
    a->reduce = 1;
    a->points = 2 * (int)rint(3 * shrink) + 1;
    if (a->points > DR_MAX_POINTS) return -1;
    a->taps = (a->points + 1) & ~1;
    for (int t = 0; t <= DR_MASK_STEPS; t++) make_mask(a->masks[t], a->points, shrink, (float)t / DR_MASK_STEPS);
    return 0;
}

/// The outputs [first, first + count) of a planned side: each one's first
/// tap and mask, from the same scale as plan_side was given. Returns -1
/// when memory is short.
int dr_plan_window(axis_plan *a, int first, int count, double scale) {
    a->first = first;
    a->count = count;
    if (!a->reduce) return 0;
    if (scale < 1.0 / a->in_size) scale = 1.0 / a->in_size;
    double shrink = 1.0 / scale;
    double extra = a->out_size * shrink - a->in_size;
    shrink /= a->box;
    extra /= a->box;
    double offset = (1 + extra) / 2.0 - 1;
    int before = (a->points + 1) / 2 - 1;
    a->start = malloc(sizeof(int) * (size_t)count);
    a->mask = malloc((size_t)count);
    if (!a->start || !a->mask) return -1;
    for (int i = 0; i < count; i++) {
        double position = (first + i + 0.5) * shrink - 0.5 - offset;
        int whole = (int)position;
        int step = (int)(position * DR_MASK_STEPS * 2) & (DR_MASK_STEPS * 2 - 1);
        a->start[i] = whole - before;
        a->mask[i] = (uint8_t)((step + 1) >> 1);
    }
    return 0;
}

void dr_plan_free(axis_plan *a) {
    free(a->start);
    free(a->mask);
}

/// The inputs (after the box) that outputs [first, first + count) read,
/// clamped to the side.
void dr_plan_inputs_read(const axis_plan *a, int *low, int *high) {
    if (!a->reduce) {
        *low = a->first;
        *high = a->first + a->count - 1;
        return;
    }
    int lo = a->start[0], hi = a->start[a->count - 1] + a->points - 1;
    *low = lo < 0 ? 0 : lo;
    *high = hi >= a->mid_size ? a->mid_size - 1 : hi;
}


// MARK: - Both sides, and what they hold
/// Every size the resampler allocates, for dr_resampler_bytes and for
/// dr_resampler_new alike.


void dr_plan_layout(const dr_resample_spec *spec, const axis_plan *down, const axis_plan *across, int pairs,
                       int padded_count, int padded_bands, dr_layout *l) {
    memset(l, 0, sizeof(*l));
    size_t row_bytes = (size_t)spec->in_width * (size_t)spec->in_bands;
    size_t stride = (row_bytes + DR_SLACK + 31) & ~(size_t)31;
    int ring_rows = (down->reduce ? down->taps : 1) + (down->box > 1 ? 2 : DR_MAX_LEND);
    l->ring = (size_t)ring_rows * stride;
    l->staging = down->box > 1 ? (size_t)DR_MAX_LEND * stride : 0;
    l->sums = down->box > 1 ? row_bytes * sizeof(uint32_t) : 0;
    l->row_pointers = sizeof(uint8_t *) * ((size_t)ring_rows + (size_t)DR_MAX_POINTS + 2);
    size_t across_slack = ((size_t)DR_MAX_POINTS + 16) * 4;
    l->column = row_bytes + DR_SLACK + across_slack;
    l->padded = (size_t)padded_count * (size_t)padded_bands + across_slack;
    l->across = across->reduce ? (size_t)across->count * ((size_t)across->taps * sizeof(int16_t) + sizeof(int)) : 0;
    l->pairs = pairs && across->reduce ? (size_t)((across->count + 1) / 2) * (size_t)((across->taps + 3) / 4) * 32 * sizeof(int16_t) : 0;
    l->result = (size_t)spec->crop_width * (size_t)spec->crop_height * 4 + DR_SLACK;
    l->tables = 4096 + (size_t)(down->count + across->count) * (sizeof(int) + 1);
    l->total = l->ring + l->staging + l->sums + l->row_pointers + l->column + l->padded + l->across + l->pairs + l->result + l->tables;
}

static int valid_spec(const dr_resample_spec *s) {
    return s->in_width >= 1 && s->in_height >= 1 && s->in_width <= DR_MAX_SIDE && s->in_height <= DR_MAX_SIDE &&
           (s->in_bands == 3 || s->in_bands == 4) && s->crop_width >= 1 && s->crop_height >= 1 &&
           s->crop_left >= 0 && s->crop_top >= 0;
}

/// Plans both sides for `spec`; -1 when out of range.
int dr_plan_sides(const dr_resample_spec *spec, axis_plan *down, axis_plan *across) {
    if (!valid_spec(spec)) return -1;
    if (plan_side(down, spec->in_height, spec->vscale) != 0 || plan_side(across, spec->in_width, spec->hscale) != 0) return -1;
    if ((long)spec->crop_left + spec->crop_width > across->out_size || (long)spec->crop_top + spec->crop_height > down->out_size) return -1;
    return 0;
}

void dr_resample_scaled_size(const dr_resample_spec *spec, int *width, int *height) {
    axis_plan down, across;
    dr_resample_spec whole = *spec;
    whole.crop_left = whole.crop_top = 0;
    whole.crop_width = whole.crop_height = 1;
    *width = *height = 0;
    if (dr_plan_sides(&whole, &down, &across) != 0) return;
    *width = across.out_size;
    *height = down.out_size;
}

/// The columns after the horizontal box that the kept outputs read,
/// before the edges are clamped: [first, first + count).
void dr_plan_padded_span(const axis_plan *across, int crop_left, int crop_width, int *first, int *count) {
    if (!across->reduce) {
        *first = crop_left;
        *count = crop_width;
        return;
    }
    // Each output's first tap moves right with the output: the first and
    // the last bound them all.
    *first = across->start[0];
    *count = across->start[across->count - 1] + across->points - across->start[0];
}

size_t dr_resampler_bytes(const dr_resample_spec *spec) {
    axis_plan down, across;
    if (dr_plan_sides(spec, &down, &across) != 0) return SIZE_MAX;
    if (dr_plan_window(&down, spec->crop_top, spec->crop_height, spec->vscale) != 0 ||
        dr_plan_window(&across, spec->crop_left, spec->crop_width, spec->hscale) != 0) {
        dr_plan_free(&down);
        dr_plan_free(&across);
        return SIZE_MAX;
    }
    int first, count;
    dr_plan_padded_span(&across, spec->crop_left, spec->crop_width, &first, &count);
    dr_layout l;
    // The largest a kernel set asks for: pairs, and four bytes a pixel.
    dr_plan_layout(spec, &down, &across, 1, count, 4, &l);
    dr_plan_free(&down);
    dr_plan_free(&across);
    return l.total;
}

