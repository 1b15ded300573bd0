// Downscaling of 8-bit pixels with libvips' own arithmetic, as a stream:
// input rows go in from top to bottom, and each output row is made as soon
// as the input rows under it are in. Only a window of rows is ever held,
// however tall the image, and only the part of the result that is kept
// (a fill's crop) is made.
//
// The arithmetic is vips_resize's with the Lanczos-3 kernel and its
// default gap of 2, as libvips 8.14 runs it without run-time SIMD: for
// each side, a box average by the integer part of the reduction that
// leaves at least 2 (with the last box completed by copies of the edge),
// then Lanczos-3 for the rest, with 12-bit masks at 1/64 pixel and the
// edges extended by copies; down first (box, then Lanczos), then across.
// The result matches libvips' pixel for pixel.
//
// The result is RGBX: 8-bit RGB, four bytes a pixel, the fourth 255.
#ifndef DARKROOM_RESAMPLE_H
#define DARKROOM_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct dr_resampler dr_resampler;

/// Which kernels do the arithmetic: the best the processor has, or one set
/// by name (each gives the same bytes; tests run them against each other).
typedef enum {
    DR_KERNELS_BEST = 0,
    DR_KERNELS_SCALAR = 1,
    DR_KERNELS_SSE2 = 2,
    DR_KERNELS_AVX2 = 3,
} dr_kernels;

typedef struct {
    /// The decoded image: each side 1 to 1 << 20; 3 (RGB) or 4 (RGBX, the
    /// fourth byte ignored) bytes a pixel.
    int in_width, in_height, in_bands;
    /// What vips_resize is given: the scale of each side, above 0 and at
    /// most 1 (1: that side is kept as it is).
    double hscale, vscale;
    /// The part of the scaled image to make: all of it, or a fill's crop.
    int crop_left, crop_top, crop_width, crop_height;
    dr_kernels kernels;
} dr_resample_spec;

/// The size of the scaled image (before the crop) that libvips makes for
/// `spec`; 0 x 0 when the spec is out of range.
void dr_resample_scaled_size(const dr_resample_spec *spec, int *width, int *height);

/// The bytes a resampler for `spec` holds at most (its window of rows,
/// its working rows and tables, and the result); SIZE_MAX when the spec is
/// out of range. What the caller checks against its memory budget before
/// anything is allocated.
size_t dr_resampler_bytes(const dr_resample_spec *spec);

/// Whether the processor can run `kernels`.
int dr_kernels_available(dr_kernels kernels);

/// A resampler for `spec`; NULL when it is out of range (a crop outside the
/// scaled image, a kernel set the processor lacks) or memory is short.
dr_resampler *dr_resampler_new(const dr_resample_spec *spec);

/// Lends room for up to `max` more input rows: fills `rows` with a pointer
/// to each, `in_width * in_bands` bytes long, and returns how many (0 once
/// every row has been lent). Rows lent must be filled, then handed back
/// with dr_resampler_push before more are asked for.
int dr_resampler_lend(dr_resampler *resampler, uint8_t **rows, int max);

/// The first `count` rows lent last are filled; makes every output row
/// they complete.
void dr_resampler_push(dr_resampler *resampler, int count);

/// Hands over the next input row where it already is, instead of copying
/// it into room lent (for a decoder that holds the whole image anyway):
/// `row` must stay readable, and 64 bytes past its end too, until
/// dr_resampler_finish. A resampler is fed one way or the other, not both.
void dr_resampler_push_row(dr_resampler *resampler, const uint8_t *row);

/// The output pixels, `crop_width` x `crop_height` RGBX, once every input
/// row has been pushed (NULL before that); the caller frees them with
/// free().
uint8_t *dr_resampler_finish(dr_resampler *resampler);

void dr_resampler_free(dr_resampler *resampler);

#endif
