#include "darkroom_icc.h"

#include <math.h>
#include <string.h>

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static double s15(const uint8_t *p) {
    return (double)(int32_t)be32(p) / 65536.0;
}

/// The tag `signature`'s data and size; NULL when absent or out of bounds.
static const uint8_t *find_tag(const uint8_t *profile, size_t length, const char *signature, uint32_t *size) {
    uint32_t count = be32(profile + 128);
    if (count > (length - 132) / 12) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *entry = profile + 132 + (size_t)i * 12;
        if (memcmp(entry, signature, 4) != 0) continue;
        uint32_t offset = be32(entry + 4), bytes = be32(entry + 8);
        if (offset > length || bytes > length - offset || bytes < 8) return NULL;
        *size = bytes;
        return profile + offset;
    }
    return NULL;
}

// MARK: - Colorants

static int colorant_is(const uint8_t *profile, size_t length, const char *signature, const double expected[3]) {
    uint32_t size;
    const uint8_t *tag = find_tag(profile, length, signature, &size);
    if (!tag || size < 20 || memcmp(tag, "XYZ ", 4) != 0) return 0;
    for (int i = 0; i < 3; i++) {
        if (fabs(s15(tag + 8 + i * 4) - expected[i]) > 0.004) return 0;
    }
    return 1;
}

// MARK: - Tone curves

static double srgb_to_linear(double v) {
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static double linear_to_srgb(double y) {
    if (y <= 0) return 0;
    return y <= 0.0031308 ? y * 12.92 : 1.055 * pow(y, 1 / 2.4) - 0.055;
}

/// The curve's linear value for the encoded value `x` (0...1); -1 when the
/// curve cannot be read.
static double curve_at(const uint8_t *tag, uint32_t size, double x) {
    if (memcmp(tag, "curv", 4) == 0) {
        if (size < 12) return -1;
        uint32_t count = be32(tag + 8);
        if (count > (size - 12) / 2) return -1;
        if (count == 0) return x;
        if (count == 1) return pow(x, (double)(tag[12] << 8 | tag[13]) / 256.0);
        double position = x * (count - 1);
        uint32_t i = (uint32_t)position;
        if (i >= count - 1) i = count - 2;
        double fraction = position - i;
        const uint8_t *p = tag + 12 + (size_t)i * 2;
        double a = (p[0] << 8 | p[1]) / 65535.0, b = (p[2] << 8 | p[3]) / 65535.0;
        return a + (b - a) * fraction;
    }
    if (memcmp(tag, "para", 4) == 0) {
        static const int parameters[] = {1, 3, 4, 5, 7};
        if (size < 12) return -1;
        unsigned kind = (unsigned)(tag[8] << 8 | tag[9]);
        if (kind > 4 || size < 12 + 4 * (uint32_t)parameters[kind]) return -1;
        double p[7] = {0};
        for (int i = 0; i < parameters[kind]; i++) p[i] = s15(tag + 12 + i * 4);
        double g = p[0], a = p[1], b = p[2], c = p[3], d = p[4], e = p[5], f = p[6];
        switch (kind) {
        case 0: return pow(x, g);
        case 1: return x >= -b / a ? pow(a * x + b, g) : 0;
        case 2: return x >= -b / a ? pow(a * x + b, g) + c : c;
        case 3: return x >= d ? pow(a * x + b, g) : c * x;
        default: return x >= d ? pow(a * x + b, g) + e : c * x + f;
        }
    }
    return -1;
}

static int curve_is_srgb(const uint8_t *profile, size_t length, const char *signature) {
    uint32_t size;
    const uint8_t *tag = find_tag(profile, length, signature, &size);
    if (!tag) return 0;
    for (int level = 0; level <= 255; level++) {
        double x = level / 255.0;
        double y = curve_at(tag, size, x);
        if (y < 0 || isnan(y)) return 0;
        // Given back as sRGB encodes it: within a level and a half.
        if (fabs(linear_to_srgb(y) - linear_to_srgb(srgb_to_linear(x))) > 1.5 / 255) return 0;
    }
    return 1;
}

// MARK: - The description, for profiles of lookup tables

static int description_names_srgb(const uint8_t *profile, size_t length) {
    uint32_t size;
    const uint8_t *tag = find_tag(profile, length, "desc", &size);
    if (!tag) return 0;
    // 'desc' (ASCII) or 'mluc' (UTF-16): look for the letters either way.
    for (uint32_t i = 8; i + 4 <= size; i++) {
        if (memcmp(tag + i, "sRGB", 4) == 0) return 1;
        if (i + 8 <= size && tag[i] == 0 && tag[i + 1] == 's' && tag[i + 2] == 0 && tag[i + 3] == 'R' &&
            tag[i + 4] == 0 && tag[i + 5] == 'G' && tag[i + 6] == 0 && tag[i + 7] == 'B') return 1;
    }
    return 0;
}

int dr_icc_is_srgb(const uint8_t *profile, size_t length) {
    if (!profile || length < 132) return 0;
    uint32_t declared = be32(profile);
    if (declared < 132 || declared > length) return 0;
    length = declared;
    if (memcmp(profile + 36, "acsp", 4) != 0 || memcmp(profile + 16, "RGB ", 4) != 0) return 0;
    // sRGB's colorants, adapted to D50 as ICC profiles store them.
    static const double red[3] = {0.4361, 0.2225, 0.0139};
    static const double green[3] = {0.3851, 0.7169, 0.0971};
    static const double blue[3] = {0.1431, 0.0606, 0.7141};
    uint32_t size;
    if (find_tag(profile, length, "rXYZ", &size)) {
        return colorant_is(profile, length, "rXYZ", red) && colorant_is(profile, length, "gXYZ", green) &&
               colorant_is(profile, length, "bXYZ", blue) && curve_is_srgb(profile, length, "rTRC") &&
               curve_is_srgb(profile, length, "gTRC") && curve_is_srgb(profile, length, "bTRC");
    }
    return description_names_srgb(profile, length);
}
