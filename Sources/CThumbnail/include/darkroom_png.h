// PNG to small pixels on libdeflate: the whole zlib stream inflated in one
// call (libdeflate inflates at about twice zlib's rate, but only a whole
// buffer at once), rows unfiltered in place, and each row handed to the
// resampler as it is ready. It takes the common photo kind only, 8-bit RGB
// without interlacing, transparency or a colour profile other than sRGB,
// and reads the chunks as libpng does (the EXIF and profile that come
// before the pixels, the pixels in one run of IDAT chunks), so that what
// it takes, libvips would read the same way.
#ifndef DARKROOM_PNG_H
#define DARKROOM_PNG_H

#include "darkroom_resample.h"
#include "darkroom_thumbnail.h"

/// Reads the chunks; nothing is inflated but an embedded colour profile.
int dr_png_read_header(const uint8_t *data, size_t length, dr_image_header *header);

/// The bytes decoding holds besides the resampler: the raw pixels, and a
/// copy of the compressed ones when they come in more than one chunk.
/// SIZE_MAX when the image is not for this path.
size_t dr_png_decode_bytes(const uint8_t *data, size_t length);

/// Decodes and resamples as `spec` says (its in_width and in_height the
/// image's own); returns RGBX pixels in `*pixels`, the crop's size, to be
/// freed with free().
int dr_png_decode_resampled(const uint8_t *data, size_t length, const dr_resample_spec *spec, uint8_t **pixels,
                            dr_cancelled cancelled, void *context);

/// Writes an 8-bit RGB PNG around `raw`: `height` rows of a filter byte and
/// `width` x 3 bytes, already filtered, compressed and given valid CRCs
/// here. For the fuzzer, which mutates the pixels and their filters rather
/// than the compressed stream (whose checksums would turn away nearly
/// every mutation). Returns the PNG's length, 0 when it does not fit in
/// `capacity`.
size_t dr_png_encode_filtered(const uint8_t *raw, size_t raw_length, int width, int height, uint8_t *out, size_t capacity);

#endif
