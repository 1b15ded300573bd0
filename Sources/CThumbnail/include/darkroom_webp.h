// WebP to small pixels on libwebp: decoded at the shrink-on-load size by
// libwebp's own scaler, as libvips' loader does it, then the resampler. It
// takes still images without transparency and with no colour profile or
// an sRGB one. The decode is incremental, a slice of the file at a time,
// so that the kill switch is looked at as it goes.
#ifndef DARKROOM_WEBP_H
#define DARKROOM_WEBP_H

#include "darkroom_resample.h"
#include "darkroom_thumbnail.h"

/// Reads the container's chunks and the bitstream's header; nothing is decoded.
int dr_webp_read_header(const uint8_t *data, size_t length, dr_image_header *header);

/// The size libwebp decodes to at 1/`shrink` (as libvips' loader asks
/// it); 0 x 0 when out of range.
void dr_webp_scaled_size(int width, int height, int shrink, int *scaled_width, int *scaled_height);

/// Decodes at 1/`shrink` of each side and resamples as `spec` says (its
/// in_width and in_height the scaled size); returns RGBX pixels in
/// `*pixels`, the crop's size, to be freed with free(). The decoded image
/// is held whole: 3 bytes a pixel of the scaled size.
int dr_webp_decode_resampled(const uint8_t *data, size_t length, int shrink, const dr_resample_spec *spec, uint8_t **pixels,
                             dr_cancelled cancelled, void *context);

#endif
