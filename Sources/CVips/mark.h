#ifndef DARKROOM_CVIPS_MARK_H
#define DARKROOM_CVIPS_MARK_H

// Watermarks: the steps on a mark before it is laid (a turn by any angle and a soft
// shadow, both on RGBA), and the laying itself.

#include <vips/vips.h>
#include <math.h>

/// `in` (RGBA) turned `degrees` clockwise onto transparency (libvips
/// counts in image coordinates, whose y axis points down), interpolated with premultiplied alpha so that edges do
/// not darken.
int darkroom_vips_rotate_any(VipsImage *in, double degrees, VipsImage **out);

/// `in` (RGBA) over its own shadow: its alpha blurred by `sigma`, black,
/// with room around it for the blur.
int darkroom_vips_drop_shadow(VipsImage *in, double sigma, VipsImage **out);

/// `mark` (8-bit sRGB, with or without alpha) laid over `base` at `left`,
/// `top`, its alpha multiplied by `opacity`; with `replicate`, tiled with
/// `gap_x`, `gap_y` between tiles, an odd number each way centred on the
/// base, and with `chessboard` every other tile left empty, as a
/// chessboard's squares (the centre one marked). The result keeps
/// `base`'s bands: alpha only if `base` had it.
int darkroom_vips_watermark(VipsImage *base, VipsImage *mark, VipsImage **out,
                            int left, int top, double opacity,
                            int replicate, int chessboard, int gap_x, int gap_y);

#endif
