#ifndef DARKROOM_BOX_DIVIDE_H
#define DARKROOM_BOX_DIVIDE_H

#include <stdint.h>

/// Division by a box's size, rounded to nearest, as a multiply and a
/// shift: a hardware divide per pixel was three quarters of a large PNG
/// thumbnail's time, and a multiply vectorises where a divide cannot.
///
/// With box in [2^j, 2^(j+1)), shift = 31 + j and inv = ceil(2^shift / box),
/// inv fits 32 bits and floor(n * inv / 2^shift) == floor(n / box) for
/// every n < 256 * box (a box of 8-bit sums plus half the box), as long as
/// 256 * box^2 <= 2^shift, that is box < 2^22. Larger boxes, which no image
/// within the pixel limits reaches, divide.
typedef struct {
    uint32_t box;
    uint32_t half;
    uint32_t inv;   // fits 32 bits, so the multiply vectorises (32 x 32 -> 64)
    int shift;
    int exact;      // 1: multiply and shift; 0: divide
} dr_box_divider;

static inline dr_box_divider dr_box_divider_make(uint32_t box) {
    dr_box_divider d = {box, box / 2, 0, 0, 0};
    if (box == 0 || box >= (1u << 22)) return d;
    int j = 31 - __builtin_clz(box);
    d.shift = 31 + j;
    d.inv = (uint32_t)(((1ull << d.shift) + box - 1) / box);
    d.exact = 1;
    return d;
}

/// The rounded mean of `count` sums, into bytes.
static inline void dr_box_divide_row(const dr_box_divider *d, const uint32_t *sums, uint8_t *out, size_t count) {
    const uint32_t half = d->half;
    if (d->exact) {
        const uint32_t inv = d->inv;
        const int shift = d->shift;
        for (size_t x = 0; x < count; x++) out[x] = (uint8_t)(((uint64_t)(sums[x] + half) * (uint64_t)inv) >> shift);
    } else {
        for (size_t x = 0; x < count; x++) out[x] = (uint8_t)((sums[x] + half) / d->box);
    }
}

static inline uint8_t dr_box_divide(const dr_box_divider *d, uint32_t sum) {
    return d->exact ? (uint8_t)(((uint64_t)(sum + d->half) * (uint64_t)d->inv) >> d->shift) : (uint8_t)((sum + d->half) / d->box);
}

#endif
