// A JPEG-to-JPEG thumbnail path on libjpeg-turbo alone: scaled decode,
// fixed-point Lanczos-3 resampling, one encode. libvips' per-image machinery
// (operation objects, regions, worker threads) costs more than the pixels
// for small outputs; this path has none of it. It takes plain 3-component
// YCbCr JPEGs only, and says so when it cannot take one, so that the caller
// can hand the image to libvips, which then decides how to answer.
#ifndef DARKROOM_JPEG_H
#define DARKROOM_JPEG_H

#include "darkroom_thumbnail.h"

/// Reads the header and the EXIF orientation; no pixel is decoded.
int dr_jpeg_read_header(const uint8_t *data, size_t length, dr_image_header *header);

/// Decodes at 1/`scale_denom` (1, 2, 4 or 8), resamples to `out_width` x
/// `out_height` with Lanczos-3 and returns RGBX pixels (4 bytes each, the
/// fourth unused) in `*pixels`, to be freed with dr_jpeg_free. The result
/// must be no larger than the decoded size on either side.
int dr_jpeg_decode_resampled(const uint8_t *data, size_t length, int scale_denom,
                             int out_width, int out_height, uint8_t **pixels,
                             dr_cancelled cancelled, void *context);

/// Multiplies every pixel by a 3x3 matrix (row-major, in 16.16 fixed point),
/// rounding and clipping to 0...255.
void dr_jpeg_recombine(uint8_t *pixels, int width, int height, const int32_t matrix[9]);

/// Encodes the `width` x `height` window at `left`, `top` of an RGBX buffer
/// `stride` pixels wide as a baseline JPEG, 4:2:0 below quality 90 and 4:4:4
/// from 90 (as libvips does), without metadata.
int dr_jpeg_encode(const uint8_t *pixels, int stride, int left, int top, int width, int height,
                   int quality, uint8_t **out, size_t *out_length);

void dr_jpeg_free(void *pointer);

#endif
