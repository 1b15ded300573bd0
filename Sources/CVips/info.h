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
static inline const void *darkroom_vips_blob(VipsImage *image, const char *name, size_t *length) {
    const void *data = NULL;
    if (vips_image_get_typeof(image, name) == 0 || vips_image_get_blob(image, name, &data, length) != 0) {
        vips_error_clear();
        return NULL;
    }
    return data;
}

/// The smallest value of the last band (the alpha of an image with alpha).
static inline int darkroom_vips_min_last_band(VipsImage *in, double *out) {
    VipsImage *band = NULL;
    if (vips_extract_band(in, &band, vips_image_get_bands(in) - 1, NULL) != 0) {
        return -1;
    }
    int result = vips_min(band, out, NULL);
    g_object_unref(band);
    return result;
}

/// Where libvips' attention strategy centres a `width` x `height` crop.
static inline int darkroom_vips_attention(VipsImage *in, int width, int height, int *x, int *y) {
    VipsImage *memory = vips_image_copy_memory(in);
    if (memory == NULL) {
        return -1;
    }
    VipsImage *out = NULL;
    int result = vips_smartcrop(memory, &out, width, height, "interesting", VIPS_INTERESTING_ATTENTION,
                                "attention_x", x, "attention_y", y, NULL);
    if (out) g_object_unref(out);
    g_object_unref(memory);
    return result;
}

/// libexif's title for a tag libvips named ("DateTimeOriginal" in IFD 2:
/// "Date and Time (Original)"); NULL for a name libexif does not know.
static inline const char *darkroom_exif_title(const char *name, int ifd) {
    ExifTag tag = exif_tag_from_name(name);
    // 0 is both "unknown" and GPSVersionID.
    if (tag == 0 && strcmp(name, "GPSVersionID") != 0) {
        return NULL;
    }
    return exif_tag_get_title_in_ifd(tag, (ExifIfd) ifd);
}

/// 8-bit luma (BT.601, rounded) of an 8-bit sRGB image, alpha ignored:
/// what SSIM compares.
static inline int darkroom_vips_luma(VipsImage *in, VipsImage **out) {
    VipsImage *t[3] = {NULL};
    double weights[3] = {0.299, 0.587, 0.114};
    VipsImage *matrix = vips_image_new_matrix_from_array(3, 1, weights, 3);
    int result = -1;
    if (matrix != NULL &&
        vips_extract_band(in, &t[0], 0, "n", 3, NULL) == 0 &&
        vips_recomb(t[0], &t[1], matrix, NULL) == 0 &&
        vips_linear1(t[1], &t[2], 1.0, 0.5, NULL) == 0 &&
        vips_cast(t[2], out, VIPS_FORMAT_UCHAR, NULL) == 0) {
        result = 0;
    }
    if (matrix) g_object_unref(matrix);
    for (int i = 0; i < 3; i++) {
        if (t[i]) g_object_unref(t[i]);
    }
    return result;
}

#endif
