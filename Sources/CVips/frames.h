#ifndef DARKROOM_CVIPS_FRAMES_H
#define DARKROOM_CVIPS_FRAMES_H

// Animations: each frame's delay, and frames joined into one animation.
// Defined in Sources/CVipsOperations/frames.c.

#include <vips/vips.h>

/// Each frame's delay in milliseconds, owned by the image; 0 when there
/// are none.
int darkroom_vips_delays(VipsImage *image, int **delays);

/// Frames of one size stacked top to bottom into one animation: each
/// frame's "page-height", and the first `count` delays and the loop count
/// of `timing` (the loaded source). The GIF and WebP savers write such an
/// image as an animation.
int darkroom_vips_join_frames(VipsImage **frames, int count, VipsImage *timing, VipsImage **out);

/// The loop count (0: for ever), or -1 when the image has none.
int darkroom_vips_loop(VipsImage *image);

/// A copy of `in` as frames of `page_height` rows stacked top to bottom,
/// with `count` delays (none when 0) and the loop count (none when
/// negative): what a saver needs to write an animation whose fields were
/// lost on the way (an uncompressed PNG handed to the encoding child).
int darkroom_vips_set_frames(VipsImage *in, int page_height, const int *delays, int count, int loop, VipsImage **out);

/// Cells of one size joined left to right, `across` to a row, rows top to
/// bottom (a sprite of video frames).
int darkroom_vips_grid(VipsImage **cells, int count, int across, VipsImage **out);

/// An 8-bit image of `bands` bands, black.
int darkroom_vips_black(int width, int height, int bands, VipsImage **out);

#endif
