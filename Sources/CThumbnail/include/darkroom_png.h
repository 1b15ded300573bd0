// PNG to small pixels on libdeflate: the whole zlib stream inflated in one
// call (libdeflate inflates at about twice zlib's rate, but only a whole
// buffer at once), rows unfiltered in place, and each row handed to the
// resampler as it is ready. It takes the common photo kind only, 8-bit RGB
// without interlacing, transparency or colour profile.
#ifndef DARKROOM_PNG_H
#define DARKROOM_PNG_H

#include "darkroom_thumbnail.h"

/// Reads the chunks before the pixels; nothing is inflated.
int dr_png_read_header(const uint8_t *data, size_t length, dr_image_header *header);

/// Decodes and resamples to `out_width` x `out_height` (no larger than the
/// image) with Lanczos-3; returns RGBX pixels in `*pixels`, to be freed
/// with free(). Declines an image whose raw pixels would take more than
/// `max_raw_bytes`.
int dr_png_decode_resampled(const uint8_t *data, size_t length, int out_width, int out_height, size_t max_raw_bytes,
                            uint8_t **pixels, dr_cancelled cancelled, void *context);

#endif
