#include "../CVips/draw.h"

int darkroom_vips_draw_boxes(VipsImage *in, const int *boxes, int count, int thickness,
                             const double *ink, int ink_count, VipsImage **out) {
    VipsImage *copy = vips_image_new_memory();
    if (vips_image_write(in, copy) != 0) {
        g_object_unref(copy);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        const int *box = boxes + 4 * i;
        for (int t = 0; t < thickness && 2 * t < box[2] && 2 * t < box[3]; t++) {
            if (vips_draw_rect(copy, (double *)ink, ink_count, box[0] + t, box[1] + t, box[2] - 2 * t, box[3] - 2 * t,
                               "fill", FALSE, NULL) != 0) {
                g_object_unref(copy);
                return -1;
            }
        }
    }
    *out = copy;
    return 0;
}
