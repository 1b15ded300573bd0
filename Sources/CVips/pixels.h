#ifndef DARKROOM_CVIPS_PIXELS_H
#define DARKROOM_CVIPS_PIXELS_H

// Raw pixels: images made over 8-bit pixels (the thumbnail path's, tests'
// and tools'), and a chain computed into memory of its own.
// Defined in Sources/CVipsOperations/pixels.c.

#include <vips/vips.h>

/// `in` computed into a new memory image of its own, whose pixels the
/// caller may then change in place (vips_image_copy_memory may hand back
/// `in` itself).
int darkroom_vips_render_to_new_memory(VipsImage *in, VipsImage **out);

/// An image over a copy of `data`: 8-bit pixels, `bands` a pixel, rows one
/// after the other; marked sRGB where it has colour bands.
int darkroom_vips_from_memory(const void *data, size_t size, int width, int height, int bands, VipsImage **out);

/// An image over `data` as it is, without a copy: the caller keeps the
/// bytes alive, unchanged, until the image is released.
int darkroom_vips_wrap_memory(const void *data, size_t size, int width, int height, int bands, VipsImage **out);

#endif
