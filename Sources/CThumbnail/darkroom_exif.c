#include "darkroom_exif.h"

static unsigned read16(const uint8_t *p, int little) {
    return little ? (unsigned)(p[0] | p[1] << 8) : (unsigned)(p[0] << 8 | p[1]);
}

static uint32_t read32(const uint8_t *p, int little) {
    return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                  : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/// Finds IFD0's 12-byte entry for `wanted` and the block's byte order;
/// returns whether there is one.
static int find_tag(const uint8_t *tiff, size_t size, unsigned wanted, const uint8_t **entry, int *little_endian) {
    if (size < 8) return 0;
    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') little = 0;
    else return 0;
    uint32_t ifd = read32(tiff + 4, little);
    if (ifd > size - 2) return 0;
    unsigned count = read16(tiff + ifd, little);
    for (unsigned i = 0; i < count; i++) {
        size_t at = (size_t)ifd + 2 + (size_t)i * 12;
        if (at + 12 > size) return 0;
        if (read16(tiff + at, little) == wanted) {
            *entry = tiff + at;
            *little_endian = little;
            return 1;
        }
    }
    return 0;
}

int dr_exif_orientation(const uint8_t *tiff, size_t length) {
    const uint8_t *entry;
    int little;
    if (!find_tag(tiff, length, 0x0112, &entry, &little)) return 1;
    unsigned value = read16(entry + 8, little);
    return value >= 1 && value <= 8 ? (int)value : 1;
}

int dr_exif_has_tag(const uint8_t *tiff, size_t length, unsigned wanted) {
    const uint8_t *entry;
    int little;
    return find_tag(tiff, length, wanted, &entry, &little);
}
