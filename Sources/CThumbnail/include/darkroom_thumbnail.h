// What the thumbnail path's decoders (JPEG, PNG, WebP) share: their status
// codes, the header each reads before any pixel, and how they are stopped.
// Each takes the common kinds of its format only, and says so when it
// cannot take one, so that the caller can hand the image to libvips, which
// then decides how to answer.
#ifndef DARKROOM_THUMBNAIL_H
#define DARKROOM_THUMBNAIL_H

#include <stddef.h>
#include <stdint.h>

#include "darkroom_status.h"

typedef struct {
    int width;
    int height;
    /// 1 when this path decodes the image (JPEG: 3-component YCbCr; PNG:
    /// 8-bit RGB, not interlaced, no transparency, profile or animation;
    /// WebP: one frame, no alpha, no profile).
    int supported;
    /// The EXIF orientation, 1 when there is none.
    int orientation;
    /// 1 when an ICC profile is embedded that is not sRGB by
    /// dr_icc_is_srgb (Display P3, Adobe RGB...): its pixels need a
    /// colour transform.
    int foreign_profile;
    /// 1 when the EXIF has a copyright (IFD0's tag 0x8298).
    int copyright;
} dr_image_header;

/// Returns nonzero when the work should stop.
typedef int (*dr_cancelled)(void *context);

#endif
