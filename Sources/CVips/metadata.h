#ifndef DARKROOM_CVIPS_METADATA_H
#define DARKROOM_CVIPS_METADATA_H

// Metadata: fields read as text, EXIF, and what a saver keeps.
// Defined in Sources/CVipsOperations/metadata.c.

#include <vips/vips.h>

/// The metadata field `name` as text (libvips' form for EXIF fields:
/// "value (description, type, ...)"), or NULL when there is none. Valid
/// while the image is.
const char *darkroom_vips_field_string(VipsImage *image, const char *name);

/// Whether the loader says the file is interlaced (an Adam7 PNG, which
/// libpng can only give whole).
int darkroom_vips_interlaced(VipsImage *image);

/// Whether a metadata field is one a saver writes into the file (EXIF,
/// XMP, IPTC, the ICC profile, PNG comments, the orientation).
int darkroom_is_file_metadata(const char *name);

/// The EXIF block libvips read, if any.
const void *darkroom_vips_exif_blob(VipsImage *image, size_t *length);

/// A copy of `in` that keeps, of the metadata savers write, only: all of
/// it but the ICC profile (`keep_all`), the ICC profile (`keep_icc`), the
/// EXIF copyright (`copyright`: the source's value, as its bytes say, into
/// a fresh EXIF block; NULL keeps none). To be saved with strip off.
///
/// libvips holds EXIF fields as libexif renders them, which for the
/// copyright is "x (Photographer) - y (Editor)": written back as it is, it
/// nests a level on every pass. The field is set anew in the form libvips
/// reads back as the value alone ("value (title, format, n, n)").
int darkroom_vips_keep_metadata(VipsImage *in, VipsImage **out, int keep_all, int keep_icc, const char *copyright);

/// The copyright a copy made by darkroom_vips_keep_metadata keeps alone
/// (no EXIF block of its own), read from the field it wrote; NULL for any
/// other image. The caller frees it with g_free.
char *darkroom_vips_kept_copyright(VipsImage *image);

/// A copy of `in` with the string field `name` set to `value` (a PNG
/// saved with strip off writes "png-comment-N-key" fields as text).
int darkroom_vips_with_string(VipsImage *in, VipsImage **out, const char *name, const char *value);

/// A copy of `in` whose resolution is `pixels_per_mm` both ways: what
/// JPEG (JFIF), PNG (pHYs) and TIFF answers state as their DPI.
int darkroom_vips_set_resolution(VipsImage *in, VipsImage **out, double pixels_per_mm);

/// `in` converted to the ICC profile `profile` (a path, or libvips'
/// built-in "srgb" or "cmyk"), from its own embedded profile or sRGB, 8 bits
/// a sample, the profile attached.
int darkroom_vips_icc_transform(VipsImage *in, VipsImage **out, const char *profile);

#endif
