#ifndef DARKROOM_CVIPS_MARK_H
#define DARKROOM_CVIPS_MARK_H

// Steps on a watermark before it is laid: a turn by any angle and a soft
// shadow, both on RGBA.

#include <vips/vips.h>
#include <math.h>

/// `in` (RGBA) turned `degrees` clockwise onto transparency (libvips
/// counts in image coordinates, whose y axis points down), interpolated with premultiplied alpha so that edges do
/// not darken.
static inline int darkroom_vips_rotate_any(VipsImage *in, double degrees, VipsImage **out) {
    VipsImage *t[3] = {NULL};
    double clear[4] = {0, 0, 0, 0};
    VipsArrayDouble *background = vips_array_double_new(clear, 4);
    int result = -1;
    if (vips_premultiply(in, &t[0], NULL) == 0 &&
        vips_rotate(t[0], &t[1], degrees, "background", background, NULL) == 0 &&
        vips_unpremultiply(t[1], &t[2], NULL) == 0 &&
        vips_cast(t[2], out, VIPS_FORMAT_UCHAR, NULL) == 0) {
        result = 0;
    }
    vips_area_unref(VIPS_AREA(background));
    for (int i = 0; i < 3; i++) {
        if (t[i]) g_object_unref(t[i]);
    }
    return result;
}

/// `in` (RGBA) over its own shadow: its alpha blurred by `sigma`, black,
/// with room around it for the blur.
static inline int darkroom_vips_drop_shadow(VipsImage *in, double sigma, VipsImage **out) {
    int margin = (int) ceil(sigma * 3);
    VipsImage *t[8] = {NULL};
    int result = -1;
    if (vips_embed(in, &t[0], margin, margin, vips_image_get_width(in) + 2 * margin,
                   vips_image_get_height(in) + 2 * margin, "extend", VIPS_EXTEND_BLACK, NULL) != 0 ||
        vips_extract_band(t[0], &t[1], 3, NULL) != 0 ||
        vips_gaussblur(t[1], &t[2], sigma, NULL) != 0 ||
        vips_linear1(t[1], &t[3], 0.0, 0.0, "uchar", TRUE, NULL) != 0) {
        goto done;
    }
    VipsImage *shadow[4] = {t[3], t[3], t[3], t[2]};
    if (vips_bandjoin(shadow, &t[4], 4, NULL) != 0 ||
        vips_copy(t[4], &t[5], "interpretation", VIPS_INTERPRETATION_sRGB, NULL) != 0 ||
        vips_copy(t[0], &t[6], "interpretation", VIPS_INTERPRETATION_sRGB, NULL) != 0 ||
        vips_composite2(t[5], t[6], &t[7], VIPS_BLEND_MODE_OVER, NULL) != 0 ||
        vips_cast(t[7], out, VIPS_FORMAT_UCHAR, NULL) != 0) {
        goto done;
    }
    result = 0;
done:
    for (int i = 0; i < 8; i++) {
        if (t[i]) g_object_unref(t[i]);
    }
    return result;
}

#endif
