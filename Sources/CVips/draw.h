#ifndef DARKROOM_CVIPS_DRAW_H
#define DARKROOM_CVIPS_DRAW_H

// Outlines drawn onto a copy of an image, for draw_detections.

#include <vips/vips.h>

/// A fresh copy of `in` in memory (never `in` itself, which others may
/// hold), with the outline of each box drawn `thickness` pixels wide in
/// `ink` (one value a band). `boxes` holds left, top, width, height for
/// each of `count` boxes, inside the image.
int darkroom_vips_draw_boxes(VipsImage *in, const int *boxes, int count, int thickness,
                             const double *ink, int ink_count, VipsImage **out);

#endif
