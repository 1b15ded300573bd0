#ifndef DARKROOM_CVIPS_GEOMETRY_H
#define DARKROOM_CVIPS_GEOMETRY_H

// Geometry beyond one libvips call: the orientation both engines read,
// pixelation, trimming and the attention crop.
// Defined in Sources/CVipsOperations/geometry.c.

#include <vips/vips.h>

/// `in` turned upright by `orientation` (EXIF's 1...8): the orientation both
/// engines read, not the one libvips' loader found.
int darkroom_vips_autorot(VipsImage *in, VipsImage **out, int orientation);

/// Blocks of size x size pixels, each the average of its pixels; the same
/// width and height as the input.
int darkroom_vips_pixelate(VipsImage *in, VipsImage **out, int size);

/// The box of `in` that is not background: pixels differing from the
/// background by more than `threshold`. The background is `r, g, b` when
/// `has_background`, else the top-left pixel's colour. An image that is all
/// background gives width and height 0. `in` should be in memory: the
/// search reads every pixel, and the crop after it reads them again.
int darkroom_vips_find_trim(VipsImage *in, double threshold, int has_background,
                            double r, double g, double b,
                            int *left, int *top, int *width, int *height);

/// Attention-based crop (libvips' saliency), for gravity "smart".
/// The attention measure reads the image more than once, which a sequential
/// source cannot do, so the (already resized) image is held in memory first.
int darkroom_vips_smartcrop(VipsImage *in, VipsImage **out, int width, int height);

#endif
