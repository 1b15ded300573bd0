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

#endif
