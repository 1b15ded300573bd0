#include "../CVips/info.h"
#include <string.h>

const void *darkroom_vips_blob(VipsImage *image, const char *name, size_t *length) {
    const void *data = NULL;
    if (vips_image_get_typeof(image, name) == 0 || vips_image_get_blob(image, name, &data, length) != 0) {
        vips_error_clear();
        return NULL;
    }
    return data;
}

int darkroom_vips_min_last_band(VipsImage *in, double *out) {
    VipsImage *band = NULL;
    if (vips_extract_band(in, &band, vips_image_get_bands(in) - 1, NULL) != 0) {
        return -1;
    }
    int result = vips_min(band, out, NULL);
    g_object_unref(band);
    return result;
}

int darkroom_vips_attention(VipsImage *in, int width, int height, int *x, int *y) {
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

const char *darkroom_exif_title(const char *name, int ifd) {
    ExifTag tag = exif_tag_from_name(name);
    // 0 is both "unknown" and GPSVersionID.
    if (tag == 0 && strcmp(name, "GPSVersionID") != 0) {
        return NULL;
    }
    return exif_tag_get_title_in_ifd(tag, (ExifIfd) ifd);
}

int darkroom_vips_luma(VipsImage *in, VipsImage **out) {
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
