// WebP to small pixels on libwebp: decoded at the shrink-on-load size by
// libwebp's own scaler, as libvips' loader does it, then the resampler. It
// takes still images without transparency or colour profile, and says so
// when it cannot take one, so that the caller can hand the image to
// libvips, which then decides how to answer.
#ifndef DARKROOM_WEBP_H
#define DARKROOM_WEBP_H

#include <stddef.h>
#include <stdint.h>

enum {
    DR_WEBP_OK = 0,
    /// Not for this path: let libvips try and say what is wrong.
    DR_WEBP_DECLINED = 1,
};

typedef struct {
    int width;
    int height;
    /// 1 when this path can decode the image: one frame, no alpha, no ICC
    /// profile.
    int supported;
    /// The EXIF orientation, 1 when there is none.
    int orientation;
    /// 1 when the EXIF has a copyright.
    int copyright;
} dr_webp_header;

/// Reads the container's chunks and the bitstream's header; nothing is decoded.
int dr_webp_read_header(const uint8_t *data, size_t length, dr_webp_header *header);

/// Decodes at 1/`shrink` of each side (libwebp scaling while it decodes;
/// 1: full size) and resamples to `out_width` x `out_height`, no larger
/// than the decoded size, with Lanczos-3; returns RGBX pixels in
/// `*pixels`, to be freed with free().
int dr_webp_decode_resampled(const uint8_t *data, size_t length, int shrink, int out_width, int out_height, uint8_t **pixels);

#endif
