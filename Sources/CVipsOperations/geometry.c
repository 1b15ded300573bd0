#include "../CVips/geometry.h"

int darkroom_vips_autorot(VipsImage *in, VipsImage **out, int orientation) {
    // The orientation both engines read (Darkroom's EXIF reader for the
    // formats the thumbnail path takes), set on a copy for vips_autorot.
    VipsImage *tagged = NULL;
    if (vips_copy(in, &tagged, NULL) != 0) return -1;
    vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
    int result = vips_autorot(tagged, out, NULL);
    g_object_unref(tagged);
    return result;
}

int darkroom_vips_pixelate(VipsImage *in, VipsImage **out, int size) {
    VipsImage *small = NULL, *blocks = NULL;
    if (vips_shrink(in, &small, (double)size, (double)size, NULL)) return -1;
    int result = vips_zoom(small, &blocks, size, size, NULL);
    g_object_unref(small);
    if (result) return -1;
    result = vips_embed(blocks, out, 0, 0, vips_image_get_width(in), vips_image_get_height(in),
                        "extend", VIPS_EXTEND_COPY, NULL);
    g_object_unref(blocks);
    return result;
}

int darkroom_vips_find_trim(VipsImage *in, double threshold, int has_background,
                            double r, double g, double b,
                            int *left, int *top, int *width, int *height) {
    double colour[3] = { r, g, b };
    int bands = vips_image_get_bands(in) - (vips_image_hasalpha(in) ? 1 : 0);
    if (bands < 1 || bands > 3) {
        vips_error("darkroom", "trim takes grey or RGB images");
        return -1;
    }
    if (!has_background) {
        double *vector = NULL;
        int n = 0;
        if (vips_getpoint(in, &vector, &n, 0, 0, NULL) != 0) {
            return -1;
        }
        for (int i = 0; i < bands && i < n; i++) {
            colour[i] = vector[i];
        }
        g_free(vector);
    }
    VipsArrayDouble *background = vips_array_double_new(colour, bands);
    int result = vips_find_trim(in, left, top, width, height, "threshold", threshold, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

int darkroom_vips_smartcrop(VipsImage *in, VipsImage **out, int width, int height) {
    VipsImage *memory = vips_image_copy_memory(in);
    if (memory == NULL) {
        return -1;
    }
    int result = vips_smartcrop(memory, out, width, height, "interesting", VIPS_INTERESTING_ATTENTION, NULL);
    g_object_unref(memory);
    return result;
}
