#include "darkroom_exif.h"

#include <string.h>

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

/// The value bytes of an entry: in the entry when they fit in four bytes,
/// else at the offset it gives. NULL when they lie outside the block.
static const uint8_t *value_bytes(const uint8_t *tiff, size_t size, const uint8_t *entry, int little, size_t bytes) {
    if (bytes <= 4) return entry + 8;
    uint32_t offset = read32(entry + 8, little);
    if (offset > size || bytes > size - offset) return NULL;
    return tiff + offset;
}

int dr_exif_orientation(const uint8_t *tiff, size_t length) {
    const uint8_t *entry;
    int little;
    if (!find_tag(tiff, length, 0x0112, &entry, &little)) return 1;
    unsigned type = read16(entry + 2, little);
    uint32_t count = read32(entry + 4, little);
    if (count == 0) return 1;
    long value = 0;
    const uint8_t *p;
    switch (type) {
    case 1: // BYTE
    case 6: // SBYTE
        value = entry[8];
        break;
    case 3: // SHORT
    case 8: // SSHORT
        value = read16(entry + 8, little);
        break;
    case 4: // LONG
    case 9: // SLONG: libexif keeps the tag as a SHORT, the low 16 bits
        value = read32(entry + 8, little) & 0xFFFF;
        break;
    case 5: // RATIONAL
    case 10: { // SRATIONAL
        if (!(p = value_bytes(tiff, length, entry, little, 8))) return 1;
        uint32_t numerator = read32(p, little), denominator = read32(p + 4, little);
        if (denominator == 0) return 1;
        value = (long)(numerator / denominator);
        break;
    }
    case 2: { // ASCII: the number it starts with
        size_t bytes = count > 64 ? 64 : count;
        if (!(p = value_bytes(tiff, length, entry, little, count > 4 ? count : 4))) return 1;
        size_t i = 0;
        while (i < bytes && (p[i] == ' ' || p[i] == '\t')) i++;
        if (i == bytes || p[i] < '0' || p[i] > '9') return 1;
        while (i < bytes && p[i] >= '0' && p[i] <= '9' && value < 100) value = value * 10 + (p[i++] - '0');
        break;
    }
    default:
        return 1;
    }
    return value >= 1 && value <= 8 ? (int)value : 1;
}

size_t dr_exif_copyright(const uint8_t *tiff, size_t length, const uint8_t **value) {
    const uint8_t *entry;
    int little;
    if (!find_tag(tiff, length, DR_EXIF_COPYRIGHT, &entry, &little)) return 0;
    unsigned type = read16(entry + 2, little);
    uint32_t count = read32(entry + 4, little);
    if ((type != 2 && type != 7) || count == 0) return 0;
    const uint8_t *p = value_bytes(tiff, length, entry, little, count);
    if (!p) return 0;
    // The photographer's part: up to the NUL that ends it (the editor's
    // part, after it, is kept only where the photographer's is).
    size_t bytes = 0;
    while (bytes < count && p[bytes] != 0) bytes++;
    *value = p;
    return bytes;
}

int dr_exif_has_tag(const uint8_t *tiff, size_t length, unsigned wanted) {
    const uint8_t *entry;
    int little;
    return find_tag(tiff, length, wanted, &entry, &little);
}

/// Whether a TIFF header (either byte order) starts at `p`.
static int starts_tiff(const uint8_t *p) {
    return memcmp(p, "II*\0", 4) == 0 || memcmp(p, "MM\0*", 4) == 0;
}

const uint8_t *dr_exif_tiff(const uint8_t *payload, size_t length, int prefix_optional, size_t *tiff_length) {
    if (length >= 6 && memcmp(payload, "Exif\0\0", 6) == 0) {
        *tiff_length = length - 6;
        return payload + 6;
    }
    if (prefix_optional && length >= 8 && starts_tiff(payload)) {
        *tiff_length = length;
        return payload;
    }
    return NULL;
}

const uint8_t *dr_exif_heif_tiff(const uint8_t *payload, size_t length, size_t *tiff_length) {
    // The offset is meant to say where the TIFF header starts; writers
    // disagree on what it counts from, so the header is looked for instead.
    for (size_t at = 0; at + 8 <= length && at <= 16; at++) {
        if (starts_tiff(payload + at)) {
            *tiff_length = length - at;
            return payload + at;
        }
    }
    return NULL;
}
