// The EXIF facts both pixel engines need, read one way for both: the
// orientation (as libvips reads it: IFD0's tag, whatever integer, rational
// or text type it is stored as) and whether a copyright is there (which
// answers keep).
#ifndef DARKROOM_EXIF_H
#define DARKROOM_EXIF_H

#include <stddef.h>
#include <stdint.h>

/// The orientation tag of IFD0 in a TIFF-structured EXIF block (as a PNG's
/// eXIf chunk holds it; a JPEG's APP1 adds an "Exif\0\0" prefix first):
/// 1 to 8, or 1 when absent, unreadable or out of range. A BYTE, SHORT or
/// LONG (its low 16 bits, as libexif keeps it), a RATIONAL's quotient, or
/// the number an ASCII value starts with.
int dr_exif_orientation(const uint8_t *tiff, size_t length);

/// The copyright of such a block as its bytes say (IFD0's tag 0x8298, up
/// to the NUL that ends the photographer's part): its length, and `*value`
/// pointing into the block; 0 when there is none or it is empty.
size_t dr_exif_copyright(const uint8_t *tiff, size_t length, const uint8_t **value);

/// Whether IFD0 of such a block has the tag `wanted`.
int dr_exif_has_tag(const uint8_t *tiff, size_t length, unsigned wanted);

/// The TIFF block of an EXIF payload as JPEG's APP1 and WebP's EXIF chunk
/// carry it: after an "Exif\0\0" prefix, or (WebP) the payload itself when
/// it has none. NULL when the payload is not EXIF.
const uint8_t *dr_exif_tiff(const uint8_t *payload, size_t length, int prefix_optional, size_t *tiff_length);

/// The TIFF block of an EXIF payload as a HEIF or AVIF item holds it: after
/// a 4-byte offset to the TIFF header. NULL when no header starts within
/// the first 16 bytes.
const uint8_t *dr_exif_heif_tiff(const uint8_t *payload, size_t length, size_t *tiff_length);

enum { DR_EXIF_COPYRIGHT = 0x8298 };

#endif
