#include "darkroom_resample.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "darkroom_box_divide.h"
#include "darkroom_resample_kernels.h"
#include "darkroom_resample_plan.h"

struct dr_resampler {
    dr_resample_spec spec;
    dr_kernel_set kernels;
    axis_plan down, across;
    int bands;

    // Rows after the vertical box, in a ring: row y is at row_at[y % ring_rows].
    // Every row lent has DR_SLACK bytes past its width: a decoder may write a
    // pixel more there (libjpeg's part-column), which nothing reads.
    uint8_t *ring;
    size_t stride;
    int ring_rows;
    const uint8_t **row_at;
    // The vertical box: input rows lent here first, summed into `sums`.
    uint8_t *staging;
    uint32_t *sums;
    int summed;          // input rows in `sums` so far
    dr_box_divider down_divider, across_divider;
    // Input columns the kept outputs read, in bytes: [byte_low, byte_high).
    size_t byte_low, byte_high;

    int pushed;          // input rows handed over
    int lent;            // rows lent by the last dr_resampler_lend
    int mids;            // rows after the box made so far
    int next_out;        // the next output row to make, within the window

    const uint8_t **window;
    uint8_t *column;     // one row made down, full width (only the columns read are valid)
    uint8_t *padded;     // one row after the horizontal box, edges extended, as the across kernel reads it
    int padded_first;    // the box column at padded[0]
    int padded_count;
    int16_t *across_weights;
    int *across_start;
    int16_t *pair_weights;
    dr_across_plan across_plan;
    uint8_t *result;
};

int dr_kernels_available(dr_kernels kernels) {
    dr_kernel_set set;
    return dr_kernel_set_for(kernels, &set);
}

static int make_pair_weights(dr_resampler *r) {
    const axis_plan *a = &r->across;
    int pairs = (a->count + 1) / 2, groups = (a->taps + 3) / 4;
    r->pair_weights = calloc((size_t)pairs * (size_t)groups * 32, sizeof(int16_t));
    if (!r->pair_weights) return -1;
    for (int pair = 0; pair < pairs; pair++) {
        int x0 = pair * 2, x1 = x0 + 1 < a->count ? x0 + 1 : x0;
        int16_t *w = r->pair_weights + (size_t)pair * (size_t)groups * 32;
        for (int g = 0; g < groups; g++) {
            for (int lane = 0; lane < 2; lane++) {
                const int16_t *source = a->masks[a->mask[lane ? x1 : x0]];
                for (int half = 0; half < 2; half++) {
                    int tap = g * 4 + half * 2;
                    int16_t w0 = tap < a->points ? source[tap] : 0;
                    int16_t w1 = tap + 1 < a->points ? source[tap + 1] : 0;
                    int16_t *vector = w + (size_t)(g * 2 + half) * 16 + lane * 8;
                    for (int i = 0; i < 4; i++) {
                        vector[i * 2] = w0;
                        vector[i * 2 + 1] = w1;
                    }
                }
            }
        }
    }
    r->across_plan.pair_weights = r->pair_weights;
    r->across_plan.groups = groups;
    return 0;
}

dr_resampler *dr_resampler_new(const dr_resample_spec *spec) {
    dr_resampler *r = calloc(1, sizeof(dr_resampler));
    if (!r) return NULL;
    r->spec = *spec;
    r->bands = spec->in_bands;
    if (!dr_kernel_set_for(spec->kernels, &r->kernels) || dr_plan_sides(spec, &r->down, &r->across) != 0 ||
        dr_plan_window(&r->down, spec->crop_top, spec->crop_height, spec->vscale) != 0 ||
        dr_plan_window(&r->across, spec->crop_left, spec->crop_width, spec->hscale) != 0) {
        dr_resampler_free(r);
        return NULL;
    }
    int padded_bands = r->bands == 3 && r->kernels.reads_rgb ? 3 : 4;
    dr_plan_padded_span(&r->across, spec->crop_left, spec->crop_width, &r->padded_first, &r->padded_count);
    dr_layout l;
    dr_plan_layout(spec, &r->down, &r->across, r->kernels.wants_pairs, r->padded_count, padded_bands, &l);

    // The input columns the kept outputs read: through the box, clamped.
    int low, high;
    dr_plan_inputs_read(&r->across, &low, &high);
    if (!r->across.reduce) {
        low = spec->crop_left;
        high = spec->crop_left + spec->crop_width - 1;
    }
    long last = (long)(high + 1) * r->across.box;
    if (last > spec->in_width) last = spec->in_width;
    r->byte_low = (size_t)low * (size_t)r->across.box * (size_t)r->bands;
    r->byte_high = (size_t)last * (size_t)r->bands;
    r->down_divider = dr_box_divider_make((uint32_t)r->down.box);
    r->across_divider = dr_box_divider_make((uint32_t)r->across.box);

    size_t row_bytes = (size_t)spec->in_width * (size_t)r->bands;
    r->stride = (row_bytes + DR_SLACK + 31) & ~(size_t)31;
    r->ring_rows = (int)(l.ring / r->stride);
    r->row_at = calloc(1, l.row_pointers);
    r->window = r->row_at + r->ring_rows;
    r->column = calloc(1, l.column);
    r->padded = calloc(1, l.padded);
    r->result = malloc(l.result);
    if (r->down.box > 1) {
        r->staging = calloc(1, l.staging);
        r->sums = calloc(1, l.sums);
    }
    if (!r->row_at || !r->column || !r->padded || !r->result || (r->down.box > 1 && (!r->staging || !r->sums))) {
        dr_resampler_free(r);
        return NULL;
    }
    if (r->across.reduce) {
        r->across_start = malloc(sizeof(int) * (size_t)r->across.count);
        r->across_weights = malloc(sizeof(int16_t) * (size_t)r->across.count * (size_t)r->across.taps);
        if (!r->across_start || !r->across_weights) {
            dr_resampler_free(r);
            return NULL;
        }
        for (int x = 0; x < r->across.count; x++) {
            r->across_start[x] = r->across.start[x] - r->padded_first;
            memcpy(r->across_weights + (size_t)x * (size_t)r->across.taps, r->across.masks[r->across.mask[x]],
                   sizeof(int16_t) * (size_t)r->across.taps);
        }
        r->across_plan = (dr_across_plan){
            .outputs = r->across.count, .points = r->across.points, .start = r->across_start,
            .weights = r->across_weights, .taps = r->across.taps, .bands = padded_bands,
        };
        if (r->kernels.wants_pairs && make_pair_weights(r) != 0) {
            dr_resampler_free(r);
            return NULL;
        }
    }
    return r;
}

// MARK: - Rows

static const uint8_t *mid_row(const dr_resampler *r, int y) {
    if (y < 0) y = 0;
    if (y >= r->down.mid_size) y = r->down.mid_size - 1;
    return r->row_at[y % r->ring_rows];
}

/// `count` pixels after the horizontal box, from box column `j` on, each
/// box whole inside the row: no clamping, and the common boxes (none, 2)
/// without the divider. Into `target` from pixel `i`, 3 or 4 bytes each.
static void box_inner(const dr_resampler *r, const uint8_t *row, uint8_t *target, int target_bands, int j, int i, int count) {
    const int bands = r->bands, box = r->across.box;
    const uint8_t *p = row + (size_t)j * (size_t)box * (size_t)bands;
    uint8_t *t = target + (size_t)i * (size_t)target_bands;
    if (box == 1 && bands == 3 && target_bands == 3) {
        memcpy(t, p, (size_t)count * 3);
    } else if (box == 1) {
        for (int x = 0; x < count; x++, p += bands, t += target_bands) {
            t[0] = p[0];
            t[1] = p[1];
            t[2] = p[2];
            if (target_bands == 4) t[3] = 255;
        }
    } else if (box == 2) {
        // (a + b + 1) / 2: the divider's rounding for a box of 2.
        for (int x = 0; x < count; x++, p += 2 * bands, t += target_bands) {
            t[0] = (uint8_t)((p[0] + p[bands] + 1) >> 1);
            t[1] = (uint8_t)((p[1] + p[bands + 1] + 1) >> 1);
            t[2] = (uint8_t)((p[2] + p[bands + 2] + 1) >> 1);
            if (target_bands == 4) t[3] = 255;
        }
    } else {
        for (int x = 0; x < count; x++, t += target_bands) {
            uint32_t s0 = 0, s1 = 0, s2 = 0;
            for (int k = 0; k < box; k++, p += bands) {
                s0 += p[0];
                s1 += p[1];
                s2 += p[2];
            }
            t[0] = dr_box_divide(&r->across_divider, s0);
            t[1] = dr_box_divide(&r->across_divider, s1);
            t[2] = dr_box_divide(&r->across_divider, s2);
            if (target_bands == 4) t[3] = 255;
        }
    }
}

/// The horizontal half of an output row: the box across (edges copied),
/// into the layout the across kernel reads, then the across kernel.
static void make_across(dr_resampler *r, const uint8_t *row, uint8_t *out) {
    const int bands = r->bands, box = r->across.box, mid = r->across.mid_size, width = r->spec.in_width;
    if (!r->across.reduce) {
        // Kept as it is: the crop's columns, as RGBX.
        const uint8_t *p = row + (size_t)r->spec.crop_left * (size_t)box * (size_t)bands;
        if (box == 1) {
            for (int x = 0; x < r->spec.crop_width; x++, p += bands) {
                out[x * 4 + 0] = p[0];
                out[x * 4 + 1] = p[1];
                out[x * 4 + 2] = p[2];
                out[x * 4 + 3] = 255;
            }
            return;
        }
    }
    const int padded_bands = r->across_plan.bands ? r->across_plan.bands : 4;
    uint8_t *q = r->padded;
    const int count = r->across.reduce ? r->padded_count : r->spec.crop_width;
    const int first = r->across.reduce ? r->padded_first : r->spec.crop_left;
    uint8_t *target = r->across.reduce ? q : out;
    const int target_bands = r->across.reduce ? padded_bands : 4;
    // The columns whose box lies whole inside the row need no clamping:
    // they take the plain loops below; the few at the edges, this one.
    int inner_low = -first > 0 ? -first : 0;
    int full_boxes = width / box < mid ? width / box : mid;
    int inner_high = full_boxes - first < count ? full_boxes - first : count;
    if (inner_high < inner_low) inner_high = inner_low;
    for (int i = 0; i < count; i++) {
        if (i == inner_low && inner_high > inner_low) {
            box_inner(r, row, target, target_bands, first + inner_low, inner_low, inner_high - inner_low);
            i = inner_high - 1;
            continue;
        }
        int j = first + i;
        if (j < 0) j = 0;
        if (j >= mid) j = mid - 1;
        uint8_t *t = target + (size_t)i * (size_t)target_bands;
        uint32_t sum[3] = {0, 0, 0};
        for (int k = 0; k < box; k++) {
            int column = j * box + k;
            if (column >= width) column = width - 1;
            const uint8_t *p = row + (size_t)column * (size_t)bands;
            sum[0] += p[0];
            sum[1] += p[1];
            sum[2] += p[2];
        }
        for (int c = 0; c < 3; c++) t[c] = dr_box_divide(&r->across_divider, sum[c]);
        if (target_bands == 4) t[3] = 255;
    }
    if (r->across.reduce) r->kernels.across(q, out, &r->across_plan);
}

/// Output row `y` of the window (0-based within it).
static void make_row(dr_resampler *r, int y) {
    uint8_t *out = r->result + (size_t)y * (size_t)r->spec.crop_width * 4;
    const uint8_t *row;
    if (r->down.reduce) {
        int first = r->down.start[y];
        const int16_t *weights = r->down.masks[r->down.mask[y]];
        for (int i = 0; i < r->down.points; i++) r->window[i] = mid_row(r, first + i) + r->byte_low;
        int count = r->down.taps;
        if (count > r->down.points) r->window[r->down.points] = r->window[0]; // weight 0
        r->kernels.down(r->window, weights, count, r->column + r->byte_low, r->byte_high - r->byte_low);
        row = r->column;
    } else {
        row = mid_row(r, r->down.first + y);
    }
    make_across(r, row, out);
}

static int last_read(const dr_resampler *r, int y) {
    if (!r->down.reduce) return r->down.first + y;
    int last = r->down.start[y] + r->down.points - 1;
    return last >= r->down.mid_size ? r->down.mid_size - 1 : last;
}

static void make_ready_rows(dr_resampler *r) {
    while (r->next_out < r->down.count && last_read(r, r->next_out) < r->mids) {
        make_row(r, r->next_out);
        r->next_out++;
    }
}

/// The oldest row after the box that an output still to be made reads.
static int oldest_needed(const dr_resampler *r) {
    if (r->next_out >= r->down.count) return r->mids;
    int first = r->down.reduce ? r->down.start[r->next_out] : r->down.first + r->next_out;
    return first < 0 ? 0 : first;
}

/// Adds an input row to the vertical box; a full box (or the last input
/// row, the box completed by copies of it) makes a row after the box.
static void add_to_box(dr_resampler *r, const uint8_t *row) {
    const int box = r->down.box;
    uint32_t *sums = r->sums;
    size_t low = r->byte_low, high = r->byte_high;
    int last_input = r->pushed == r->spec.in_height - 1;
    int copies = 1;
    if (last_input) copies = box - r->summed;
    if (copies == 1) {
        for (size_t x = low; x < high; x++) sums[x] += row[x];
    } else {
        for (size_t x = low; x < high; x++) sums[x] += (uint32_t)row[x] * (uint32_t)copies;
    }
    r->summed += copies;
    if (r->summed < box) return;
    uint8_t *out = r->ring + (size_t)(r->mids % r->ring_rows) * r->stride;
    dr_box_divide_row(&r->down_divider, sums + low, out + low, high - low);
    memset(sums + low, 0, (high - low) * sizeof(uint32_t));
    r->row_at[r->mids % r->ring_rows] = out;
    r->summed = 0;
    r->mids++;
    make_ready_rows(r);
}

int dr_resampler_lend(dr_resampler *r, uint8_t **rows, int max) {
    if (!r->ring) {
        // Zeroed: the vector kernels read the slack past each row (and
        // multiply it by 0), which must still be defined memory.
        r->ring = calloc((size_t)r->ring_rows, r->stride);
        if (!r->ring) return 0;
    }
    int count = r->spec.in_height - r->pushed;
    if (count > max) count = max;
    if (count > DR_MAX_LEND) count = DR_MAX_LEND;
    if (count < 0) count = 0;
    if (r->down.box > 1) {
        // Into the staging rows, to be summed.
        for (int i = 0; i < count; i++) rows[i] = r->staging + (size_t)i * r->stride;
    } else {
        // Straight into the ring, past the rows still needed.
        int room = oldest_needed(r) + r->ring_rows - r->pushed;
        if (count > room) count = room;
        if (count < 0) count = 0;
        for (int i = 0; i < count; i++) {
            int slot = (r->pushed + i) % r->ring_rows;
            rows[i] = r->ring + (size_t)slot * r->stride;
            r->row_at[slot] = rows[i];
        }
    }
    r->lent = count;
    return count;
}

void dr_resampler_push(dr_resampler *r, int count) {
    if (count < 0) count = 0;
    if (count > r->lent) count = r->lent;
    r->lent = 0;
    if (r->down.box > 1) {
        for (int i = 0; i < count; i++, r->pushed++) add_to_box(r, r->staging + (size_t)i * r->stride);
        return;
    }
    r->pushed += count;
    r->mids = r->pushed;
    make_ready_rows(r);
}

void dr_resampler_push_row(dr_resampler *r, const uint8_t *row) {
    if (r->pushed >= r->spec.in_height) return;
    if (r->down.box > 1) {
        if (!r->ring) {
            r->ring = calloc((size_t)r->ring_rows, r->stride);
            if (!r->ring) return;
        }
        add_to_box(r, row);
        r->pushed++;
        return;
    }
    // The slot's previous row is older than any row still needed: the
    // window never spans more than the ring's rows.
    r->row_at[r->pushed % r->ring_rows] = row;
    r->pushed++;
    r->mids = r->pushed;
    make_ready_rows(r);
}

uint8_t *dr_resampler_finish(dr_resampler *r) {
    if (r->next_out < r->down.count) return NULL;
    uint8_t *result = r->result;
    r->result = NULL;
    return result;
}

void dr_resampler_free(dr_resampler *r) {
    if (!r) return;
    dr_plan_free(&r->down);
    dr_plan_free(&r->across);
    free(r->ring);
    free(r->staging);
    free(r->sums);
    free(r->row_at);
    free(r->column);
    free(r->padded);
    free(r->across_start);
    free(r->across_weights);
    free(r->pair_weights);
    free(r->result);
    free(r);
}
