#ifndef DARKROOM_CVIPS_FILTERS_H
#define DARKROOM_CVIPS_FILTERS_H

// Filters Darkroom builds from libvips' own: a 3 x 3 convolution from a
// kernel given as numbers.
// Defined in Sources/CVipsOperations/filters.c.

#include <vips/vips.h>

/// A 3 x 3 convolution of `kernel` (row by row) divided by `scale`, in
/// float.
int darkroom_vips_conv3(VipsImage *in, VipsImage **out, const double *kernel, double scale);

#endif
