// The one colour-profile rule of both pixel engines: whether an embedded
// ICC profile is sRGB, so that its pixels are taken as they are, or
// another space (Display P3, Adobe RGB, a camera's), whose pixels are
// transformed to sRGB (by libvips; the thumbnail path declines those).
#ifndef DARKROOM_ICC_H
#define DARKROOM_ICC_H

#include <stddef.h>
#include <stdint.h>

/// Whether `profile` describes sRGB: an RGB profile whose colorants are
/// sRGB's (D50, within 0.004) and whose three tone curves each give back
/// every 8-bit level within 1.5 levels once encoded as sRGB; or, for a
/// profile of lookup tables without colorants, one whose description names
/// sRGB. Anything unreadable is not sRGB.
int dr_icc_is_srgb(const uint8_t *profile, size_t length);

#endif
