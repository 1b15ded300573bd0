#include "../CVips/pixels.h"

int darkroom_vips_render_to_new_memory(VipsImage *in, VipsImage **out) {
    VipsImage *memory = vips_image_new_memory();
    if (vips_image_write(in, memory) != 0) {
        g_object_unref(memory);
        return -1;
    }
    *out = memory;
    return 0;
}

/// `image`, just made over raw 8-bit pixels, marked sRGB where it has
/// colour bands, into `out`; -1 when it could not be made.
static int darkroom_vips_raw_pixels_image(VipsImage *image, int bands, VipsImage **out) {
    if (image == NULL) {
        return -1;
    }
    if (bands >= 3) {
        image->Type = VIPS_INTERPRETATION_sRGB;
    }
    *out = image;
    return 0;
}

int darkroom_vips_from_memory(const void *data, size_t size, int width, int height, int bands, VipsImage **out) {
    return darkroom_vips_raw_pixels_image(vips_image_new_from_memory_copy(data, size, width, height, bands, VIPS_FORMAT_UCHAR), bands, out);
}

int darkroom_vips_wrap_memory(const void *data, size_t size, int width, int height, int bands, VipsImage **out) {
    return darkroom_vips_raw_pixels_image(vips_image_new_from_memory(data, size, width, height, bands, VIPS_FORMAT_UCHAR), bands, out);
}
