// PNG to small pixels on libdeflate: the whole zlib stream inflated in one
// call (libdeflate inflates at about twice zlib's rate, but only a whole
// buffer at once), rows unfiltered in place, and each row handed to the
// resampler as it is ready. It takes the common photo kind only, 8-bit RGB
// without interlacing, transparency or colour profile, and says so when it
// cannot take one, so that the caller can hand the image to libvips, which
// then decides how to answer.
#ifndef DARKROOM_PNG_H
#define DARKROOM_PNG_H

#include <stddef.h>
#include <stdint.h>

enum {
    DR_PNG_OK = 0,
    /// Not for this path (another kind of PNG, a damaged stream): let
    /// libvips try and say what is wrong.
    DR_PNG_DECLINED = 1,
    DR_PNG_CANCELLED = 2,
};

typedef struct {
    int width;
    int height;
    /// 1 when this path can decode the image (8-bit RGB, not interlaced,
    /// no tRNS, iCCP or acTL chunk).
    int supported;
    /// The EXIF orientation (an eXIf chunk's), 1 when there is none.
    int orientation;
    /// 1 when the EXIF has a copyright.
    int copyright;
} dr_png_header;

/// Returns nonzero when the work should stop.
typedef int (*dr_png_cancelled)(void *context);

/// Reads the chunks before the pixels; nothing is inflated.
int dr_png_read_header(const uint8_t *data, size_t length, dr_png_header *header);

/// Decodes and resamples to `out_width` x `out_height` (no larger than the
/// image) with Lanczos-3; returns RGBX pixels in `*pixels`, to be freed
/// with free(). Declines an image whose raw pixels would take more than
/// `max_raw_bytes`.
int dr_png_decode_resampled(const uint8_t *data, size_t length, int out_width, int out_height, size_t max_raw_bytes,
                            uint8_t **pixels, dr_png_cancelled cancelled, void *context);

#endif
