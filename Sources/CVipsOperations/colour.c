#include "../CVips/colour.h"

int darkroom_vips_with_alpha(VipsImage *in, VipsImage **out) {
    if (vips_image_hasalpha(in)) {
        return vips_copy(in, out, NULL);
    }
    return vips_addalpha(in, out, NULL);
}

const void *darkroom_vips_icc_profile(VipsImage *image, size_t *length) {
    const void *data;
    if (vips_image_get_typeof(image, VIPS_META_ICC_NAME) == 0 ||
        vips_image_get_blob(image, VIPS_META_ICC_NAME, &data, length) != 0) {
        vips_error_clear();
        return NULL;
    }
    return data;
}

int darkroom_vips_to_srgb16(VipsImage *in, VipsImage **out, int transform_profile) {
    VipsInterpretation interpretation = vips_image_get_interpretation(in);
    if (interpretation == VIPS_INTERPRETATION_CMYK) {
        return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "input_profile", "cmyk", "depth", 16, NULL);
    }
    if (transform_profile && vips_icc_transform(in, out, "srgb", "embedded", TRUE, "depth", 16, NULL) == 0) {
        return 0;
    }
    vips_error_clear();
    return vips_colourspace(in, out, interpretation == VIPS_INTERPRETATION_GREY16 ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_RGB16, NULL);
}

int darkroom_vips_to_srgb8(VipsImage *in, VipsImage **out, int transform_profile) {
    VipsImage *t = NULL;
    int result;
    if (vips_image_get_interpretation(in) == VIPS_INTERPRETATION_CMYK) {
        result = vips_icc_transform(in, &t, "srgb",
                                    "embedded", TRUE,
                                    "input_profile", "cmyk",
                                    "depth", 8,
                                    NULL);
    } else if (transform_profile &&
               vips_icc_transform(in, &t, "srgb", "embedded", TRUE, "depth", 8, NULL) == 0) {
        result = 0;
    } else {
        // No profile, an sRGB one, or one lcms cannot use: as sRGB.
        vips_error_clear();
        result = vips_colourspace(in, &t, VIPS_INTERPRETATION_sRGB, NULL);
    }
    if (result != 0) {
        return -1;
    }
    if (vips_image_get_format(t) == VIPS_FORMAT_UCHAR) {
        *out = t;
        return 0;
    }
    result = vips_cast(t, out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(t);
    return result;
}

int darkroom_vips_recomb3(VipsImage *in, VipsImage **out, const double matrix[9]) {
    VipsImage *m = vips_image_new_matrix_from_array(3, 3, matrix, 9);
    if (m == NULL) {
        return -1;
    }
    VipsImage *colour = NULL, *alpha = NULL, *mixed = NULL, *clipped = NULL;
    int result = -1;
    int hasAlpha = vips_image_get_bands(in) == 4;
    if (hasAlpha) {
        if (vips_extract_band(in, &colour, 0, "n", 3, NULL) != 0) goto done;
        if (vips_extract_band(in, &alpha, 3, NULL) != 0) goto done;
    } else {
        colour = in;
        g_object_ref(colour);
    }
    if (vips_recomb(colour, &mixed, m, NULL) != 0) goto done;
    // recomb gives float; cast rounds and clips to 0..255.
    if (vips_cast(mixed, &clipped, VIPS_FORMAT_UCHAR, "shift", FALSE, NULL) != 0) goto done;
    if (hasAlpha) {
        result = vips_bandjoin2(clipped, alpha, out, NULL);
    } else {
        *out = clipped;
        clipped = NULL;
        result = 0;
    }
done:
    if (clipped) g_object_unref(clipped);
    if (mixed) g_object_unref(mixed);
    if (alpha) g_object_unref(alpha);
    if (colour) g_object_unref(colour);
    g_object_unref(m);
    return result;
}

int darkroom_vips_weighted_sum2(VipsImage *in, VipsImage **out, double a, double b) {
    VipsImage *matrix = vips_image_new_matrix_from_array(2, 1, (double[]){a, b}, 2);
    if (matrix == NULL) return -1;
    int result = vips_recomb(in, out, matrix, NULL);
    g_object_unref(matrix);
    return result;
}

int darkroom_vips_bitmap_bands(VipsImage *in, VipsImage **out) {
    VipsImage *t = NULL;
    int result;
    if (vips_image_get_bands(in) == 2) {
        result = vips_colourspace(in, &t, VIPS_INTERPRETATION_sRGB, NULL);
    } else {
        result = vips_copy(in, &t, NULL);
    }
    if (result != 0) return -1;
    result = vips_cast_uchar(t, out, NULL);
    g_object_unref(t);
    return result;
}
