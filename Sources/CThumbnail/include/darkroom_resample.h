// Lanczos-3 resampling of 8-bit pixels in fixed point, as a stream: input
// rows go in from top to bottom, into room the resampler lends, and each
// output row is made as soon as the input rows under it are in. Only a
// window of input rows is ever held, however tall the image.
//
// Each output row is resampled down first (over whole input rows, where
// the vector code needs no shuffling), then across. Weights are 16-bit
// with 14 fractional bits, two taps per multiply-add (SSE2 pmaddwd, as
// Pillow-SIMD does), and AVX2 where the processor has it. The result is
// RGBX: 8-bit RGB, four bytes a pixel, the fourth 255.
#ifndef DARKROOM_RESAMPLE_H
#define DARKROOM_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct dr_resampler dr_resampler;

/// A resampler from `in_width` x `in_height` pixels of `in_bands` bytes
/// (3: RGB, 4: RGBX, the fourth byte ignored) to `out_width` x
/// `out_height`; NULL when a size is out of range (each side 1 to 1 << 20)
/// or memory is short.
dr_resampler *dr_resampler_new(int in_width, int in_height, int in_bands, int out_width, int out_height);

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

/// The output pixels, `out_width` x `out_height` RGBX, once every input row
/// has been pushed (NULL before that); the caller frees them with free().
uint8_t *dr_resampler_finish(dr_resampler *resampler);

void dr_resampler_free(dr_resampler *resampler);

#endif
