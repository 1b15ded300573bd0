// AVIF to small pixels on libavif (dav1d beneath): the whole frame decoded,
// then turned into RGB rows by libheif's own arithmetic (its general
// YCbCr-to-RGB conversion, which libvips' loader has it run), straight into
// the resampler. It takes still, opaque, 8-bit images (4:2:0, 4:2:2 or
// 4:4:4, full or limited range) with no transformation and no colour
// profile but sRGB, taken as stored (libvips' loader drops the EXIF's
// orientation).
#ifndef DARKROOM_AVIF_H
#define DARKROOM_AVIF_H

#include "darkroom_resample.h"
#include "darkroom_thumbnail.h"

/// Reads the container and the image's properties; nothing is decoded.
int dr_avif_read_header(const uint8_t *data, size_t length, dr_image_header *header);

/// Decodes the image whole (at its size: AV1 has no scaled decode) and
/// resamples as `spec` says; returns RGBX pixels in `*pixels`, the crop's
/// size, to be freed with free(). The decoder holds the frame's planes: 1.5
/// bytes a pixel, and about as much again while it decodes. The kill switch
/// is looked at before the decode and every 64 rows after it.
int dr_avif_decode_resampled(const uint8_t *data, size_t length, const dr_resample_spec *spec, uint8_t **pixels,
                             dr_cancelled cancelled, void *context);

#endif
