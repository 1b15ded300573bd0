#include "../CVips/filters.h"

int darkroom_vips_conv3(VipsImage *in, VipsImage **out, const double *kernel, double scale) {
    // The mask is an image libvips reads its scale from; it lives only as
    // long as the call.
    VipsImage *mask = vips_image_new_matrix_from_array(3, 3, kernel, 9);
    if (mask == NULL) return -1;
    vips_image_set_double(mask, "scale", scale);
    int result = vips_conv(in, out, mask, "precision", VIPS_PRECISION_FLOAT, NULL);
    g_object_unref(mask);
    return result;
}
