#ifndef DARKROOM_CVIPS_INFO_H
#define DARKROOM_CVIPS_INFO_H

// What `/info` reads from an image besides its pixels: names of its
// colourspace and sample format, its metadata fields and blobs, EXIF tag
// titles (libexif's, as libvips names the fields by them), the smallest
// alpha, and where libvips' attention strategy looks.

#include <vips/vips.h>
#include <libexif/exif-tag.h>
#include <string.h>

/// "srgb", "cmyk", "b-w", ...: libvips' own names.
static inline const char *darkroom_vips_interpretation_nick(VipsImage *image) {
    return vips_enum_nick(VIPS_TYPE_INTERPRETATION, vips_image_get_interpretation(image));
}

/// "uchar", "ushort", "float", ...
static inline const char *darkroom_vips_format_nick(VipsImage *image) {
    return vips_enum_nick(VIPS_TYPE_BAND_FORMAT, vips_image_get_format(image));
}

/// The image's metadata field names, NULL-terminated; free with g_strfreev.
static inline gchar **darkroom_vips_field_names(VipsImage *image) {
    return vips_image_get_fields(image);
}

/// A blob field ("iptc-data", "xmp-data"), owned by the image; NULL when absent.
const void *darkroom_vips_blob(VipsImage *image, const char *name, size_t *length);

/// The smallest value of the last band (the alpha of an image with alpha).
int darkroom_vips_min_last_band(VipsImage *in, double *out);

/// Where libvips' attention strategy centres a `width` x `height` crop.
int darkroom_vips_attention(VipsImage *in, int width, int height, int *x, int *y);

/// libexif's title for a tag libvips named ("DateTimeOriginal" in IFD 2:
/// "Date and Time (Original)"); NULL for a name libexif does not know.
const char *darkroom_exif_title(const char *name, int ifd);

/// 8-bit luma (BT.601, rounded) of an 8-bit sRGB image, alpha ignored:
/// what SSIM compares.
int darkroom_vips_luma(VipsImage *in, VipsImage **out);

#endif
