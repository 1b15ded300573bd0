#ifndef DARKROOM_CVIPS_COLOUR_H
#define DARKROOM_CVIPS_COLOUR_H

// Colour: any source to 8- or 16-bit sRGB by one policy, colour matrices,
// alpha added, and the bands the bitmap writers take.
// Defined in Sources/CVipsOperations/colour.c.

#include <vips/vips.h>

/// `in` with an opaque alpha band added when it has none.
int darkroom_vips_with_alpha(VipsImage *in, VipsImage **out);

/// The embedded ICC profile's bytes (valid while the image is), or NULL.
/// Whether it is sRGB is the caller's one rule to decide (CThumbnail's
/// dr_icc_is_srgb), for libvips' path and the thumbnail path alike.
const void *darkroom_vips_icc_profile(VipsImage *image, size_t *length);

/// A 16-bit source kept at 16 bits (imgproxy's preserve_hdr): 16-bit RGB
/// (or 16-bit grey, kept grey), alpha kept; CMYK and foreign profiles
/// through lcms at 16 bits.
int darkroom_vips_to_srgb16(VipsImage *in, VipsImage **out, int transform_profile);

/// Any input (CMYK, 16-bit, grey, Lab...) to 8-bit sRGB, alpha kept.
/// CMYK goes through its embedded profile, or libvips' built-in one; an
/// RGB image through its embedded profile when the caller has found it
/// foreign (`transform_profile`).
int darkroom_vips_to_srgb8(VipsImage *in, VipsImage **out, int transform_profile);

/// A 3x3 colour matrix on the first three bands, clipped to 0..255, with
/// any alpha band passed through untouched.
int darkroom_vips_recomb3(VipsImage *in, VipsImage **out, const double matrix[9]);

/// The bands of `in` summed with these weights, into one band.
int darkroom_vips_weighted_sum2(VipsImage *in, VipsImage **out, double a, double b);

/// 8-bit grey, RGB or RGBA for the BMP and ICO writers: grey with alpha
/// becomes RGBA (neither format has grey with alpha).
int darkroom_vips_bitmap_bands(VipsImage *in, VipsImage **out);

#endif
