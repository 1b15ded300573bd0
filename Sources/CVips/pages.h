#ifndef DARKROOM_CVIPS_PAGES_H
#define DARKROOM_CVIPS_PAGES_H

// Frames or pages stacked into one still image: without the metadata that
// would make an encoder write them as an animation.

#include <vips/vips.h>

static inline int darkroom_vips_one_page(VipsImage *in, VipsImage **out) {
    if (vips_copy(in, out, NULL) != 0) {
        return -1;
    }
    const char *names[] = {"page-height", "n-pages", "delay", "loop", "gif-delay", "gif-loop"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        vips_image_remove(*out, names[i]);
    }
    return 0;
}

#endif
