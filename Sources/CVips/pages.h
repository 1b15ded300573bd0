#ifndef DARKROOM_CVIPS_PAGES_H
#define DARKROOM_CVIPS_PAGES_H

// Frames or pages stacked into one still image: without the metadata that
// would make an encoder write them as an animation.

#include <vips/vips.h>

int darkroom_vips_one_page(VipsImage *in, VipsImage **out);

#endif
