// The two EXIF facts the thumbnail path needs before it may take an image:
// its orientation and whether it carries a copyright (which answers keep).
#ifndef DARKROOM_EXIF_H
#define DARKROOM_EXIF_H

#include <stddef.h>
#include <stdint.h>

/// The orientation tag of IFD0 in a TIFF-structured EXIF block (as a PNG's
/// eXIf chunk holds it; a JPEG's APP1 adds an "Exif\0\0" prefix first), 1
/// when absent or unreadable.
int dr_exif_orientation(const uint8_t *tiff, size_t length);

/// Whether IFD0 of such a block has the tag `wanted`.
int dr_exif_has_tag(const uint8_t *tiff, size_t length, unsigned wanted);

enum { DR_EXIF_COPYRIGHT = 0x8298 };

#endif
