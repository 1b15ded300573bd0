#include "../CVips/pages.h"

int darkroom_vips_one_page(VipsImage *in, VipsImage **out) {
    if (vips_copy(in, out, NULL) != 0) {
        return -1;
    }
    const char *names[] = {"page-height", "n-pages", "delay", "loop", "gif-delay", "gif-loop"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        vips_image_remove(*out, names[i]);
    }
    return 0;
}
