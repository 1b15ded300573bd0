#include "../CVips/mark.h"

int darkroom_vips_watermark(VipsImage *base, VipsImage *mark, VipsImage **out,
                            int left, int top, double opacity,
                            int replicate, int chessboard, int gap_x, int gap_y) {
    VipsImage *t[13] = { NULL };
    int result = -1;
    VipsImage *overlay = mark;
    if (!vips_image_hasalpha(overlay)) {
        if (vips_addalpha(overlay, &t[0], NULL)) goto done;
        overlay = t[0];
    }
    if (opacity < 1) {
        int bands = vips_image_get_bands(overlay);
        if (vips_extract_band(overlay, &t[1], 0, "n", bands - 1, NULL) ||
            vips_extract_band(overlay, &t[2], bands - 1, NULL) ||
            vips_linear1(t[2], &t[3], opacity, 0, "uchar", TRUE, NULL) ||
            vips_bandjoin2(t[1], t[3], &t[4], NULL)) goto done;
        overlay = t[4];
    }
    if (replicate) {
        // As imgproxy: one tile with its gap shared on both sides, repeated
        // an odd number of times each way and centred on the base.
        int tile_w = vips_image_get_width(overlay) + gap_x, tile_h = vips_image_get_height(overlay) + gap_y;
        int base_w = vips_image_get_width(base), base_h = vips_image_get_height(base);
        int across = (base_w + tile_w - 1) / tile_w, down = (base_h + tile_h - 1) / tile_h;
        if (across % 2 == 0) across++;
        if (down % 2 == 0) down++;
        if (vips_embed(overlay, &t[5], gap_x / 2, gap_y / 2, tile_w, tile_h, "extend", VIPS_EXTEND_BLACK, NULL)) goto done;
        if (chessboard) {
            // Two tiles by two, marked on one diagonal, repeated and cut to
            // the odd count: tile (i, j) is marked where i + j is even.
            if (vips_black(&t[8], tile_w, tile_h, "bands", vips_image_get_bands(t[5]), NULL) ||
                vips_cast(t[8], &t[9], vips_image_get_format(t[5]), NULL) ||
                vips_join(t[5], t[9], &t[10], VIPS_DIRECTION_HORIZONTAL, NULL) ||
                vips_join(t[9], t[5], &t[11], VIPS_DIRECTION_HORIZONTAL, NULL) ||
                vips_join(t[10], t[11], &t[12], VIPS_DIRECTION_VERTICAL, NULL) ||
                vips_replicate(t[12], &t[6], (across + 1) / 2, (down + 1) / 2, NULL)) goto done;
            VipsImage *cut = NULL;
            if (vips_extract_area(t[6], &cut, 0, 0, across * tile_w, down * tile_h, NULL)) goto done;
            g_object_unref(t[6]);
            t[6] = cut;
        } else if (vips_replicate(t[5], &t[6], across, down, NULL)) goto done;
        overlay = t[6];
        left = -((across * tile_w - base_w) / 2);
        top = -((down * tile_h - base_h) / 2);
    }
    VipsImage *composed = NULL;
    if (vips_composite2(base, overlay, &composed, VIPS_BLEND_MODE_OVER, "x", left, "y", top, NULL)) goto done;
    t[7] = composed;
    // Back to the base's bands and 8 bits.
    VipsImage *bands = NULL;
    int keep = vips_image_get_bands(base);
    if (vips_image_get_bands(composed) != keep) {
        if (vips_extract_band(composed, &bands, 0, "n", keep, NULL)) goto done;
    } else {
        bands = composed;
        g_object_ref(bands);
    }
    result = vips_cast_uchar(bands, out, NULL);
    g_object_unref(bands);
done:
    for (int i = 0; i < 13; i++) {
        if (t[i]) g_object_unref(t[i]);
    }
    return result;
}

int darkroom_vips_rotate_any(VipsImage *in, double degrees, VipsImage **out) {
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

int darkroom_vips_drop_shadow(VipsImage *in, double sigma, VipsImage **out) {
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
