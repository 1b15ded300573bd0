// A JPEG-to-JPEG thumbnail path on libjpeg-turbo alone: scaled decode,
// libvips' resampling arithmetic, one encode. libvips' per-image machinery
// (operation objects, regions, worker threads) costs more than the pixels
// for small outputs; this path has none of it. It takes plain 3-component
// YCbCr JPEGs only, and says so when it cannot take one, so that the caller
// can hand the image to libvips, which then decides how to answer.
//
// Every libjpeg call here runs under one progress monitor, which libjpeg
// calls as it reads each row of blocks, including while it reads every
// scan of a multi-scan file before the first row: it stops the work when
// the caller's kill switch is pulled, when a scan past the caller's limit
// begins, and at libjpeg's first warning (the answer would be declined
// anyway). libjpeg's own memory limit is the caller's budget.
#ifndef DARKROOM_JPEG_H
#define DARKROOM_JPEG_H

#include "darkroom_resample.h"
#include "darkroom_thumbnail.h"

/// Reads the header, the EXIF orientation and copyright and whether the
/// colour profile is sRGB (dr_icc_is_srgb); no pixel is decoded.
int dr_jpeg_read_header(const uint8_t *data, size_t length, dr_image_header *header);

typedef struct {
    /// libjpeg's DCT scaling: 1, 2, 4 or 8.
    int scale_denom;
    /// The resampling, for the image as decoded at that scale (its
    /// in_width and in_height must be libjpeg's output size, or the image
    /// is declined); in_bands is set here.
    dr_resample_spec resample;
    /// The most scans libjpeg may read (0: no limit).
    long max_scans;
    /// The most bytes libjpeg may hold for its own buffers (0: no limit).
    size_t max_memory;
    dr_cancelled cancelled;
    void *context;
} dr_jpeg_decode_options;

/// Decodes and resamples as `options` say; returns RGBX pixels (4 bytes
/// each, the fourth unused) in `*pixels`, the crop's size, to be freed
/// with dr_jpeg_free. DR_TOO_MANY_SCANS or DR_OVER_BUDGET when a limit
/// stops it, DR_CANCELLED when the kill switch does.
int dr_jpeg_decode_resampled(const uint8_t *data, size_t length, const dr_jpeg_decode_options *options, uint8_t **pixels);

/// Encodes a `width` x `height` RGBX buffer as a baseline JPEG, 4:2:0
/// below quality 90 and 4:4:4 from 90 (as libvips does), without metadata.
/// The JPEG, in a buffer of its own, is freed with dr_jpeg_free.
int dr_jpeg_encode(const uint8_t *pixels, int width, int height, int quality, uint8_t **out, size_t *out_length);

void dr_jpeg_free(void *pointer);

#endif
