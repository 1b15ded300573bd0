// WebP to small pixels on libwebp: decoded at the shrink-on-load size by
// libwebp's own scaler, as libvips' loader does it, then the resampler. It
// takes still images without transparency or colour profile.
#ifndef DARKROOM_WEBP_H
#define DARKROOM_WEBP_H

#include "darkroom_thumbnail.h"

/// Reads the container's chunks and the bitstream's header; nothing is decoded.
int dr_webp_read_header(const uint8_t *data, size_t length, dr_image_header *header);

/// Decodes at 1/`shrink` of each side (libwebp scaling while it decodes;
/// 1: full size) and resamples to `out_width` x `out_height`, no larger
/// than the decoded size, with Lanczos-3; returns RGBX pixels in
/// `*pixels`, to be freed with free().
int dr_webp_decode_resampled(const uint8_t *data, size_t length, int shrink, int out_width, int out_height, uint8_t **pixels);

#endif
