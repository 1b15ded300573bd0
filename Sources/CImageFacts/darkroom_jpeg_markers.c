#include "darkroom_jpeg_markers.h"

#include <limits.h>
#include <string.h>

#include "darkroom_exif.h"
#include "darkroom_status.h"

static unsigned be16(const uint8_t *p) {
    return (unsigned)(p[0] << 8 | p[1]);
}

static int is_frame(int marker) {
    return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

/// The position of the marker that ends the entropy-coded data from
/// `position` on: an 0xFF followed by neither 0x00 (a stuffed byte) nor a
/// restart marker. `length` when the data runs to the end.
static size_t end_of_entropy_data(const uint8_t *data, size_t length, size_t position) {
    while (position < length) {
        const uint8_t *found = memchr(data + position, 0xFF, length - position);
        if (!found) return length;
        size_t at = (size_t)(found - data), next = at + 1;
        while (next < length && data[next] == 0xFF) next++;
        if (next >= length) return length;
        uint8_t byte = data[next];
        if (byte != 0x00 && !(byte >= 0xD0 && byte <= 0xD7)) return next - 1;
        position = next + 1;
    }
    return length;
}

/// Calls `visit` for each marker segment (not SOI, EOI, RSTn) up to the end
/// of the image, with its marker, body and body length; stops when `visit`
/// returns nonzero. Returns whether EOI was reached.
typedef int (*segment_visitor)(int marker, const uint8_t *body, size_t size, void *context);

static int walk(const uint8_t *data, size_t length, segment_visitor visit, void *context) {
    size_t position = 2;
    while (position < length) {
        // Anything between segments is skipped, as libjpeg skips it.
        const uint8_t *found = memchr(data + position, 0xFF, length - position);
        if (!found) return 0;
        position = (size_t)(found - data);
        while (position < length && data[position] == 0xFF) position++;
        if (position >= length) return 0;
        int marker = data[position++];
        if (marker == 0xD9) return 1;
        if (marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) continue;
        if (length - position < 2) return 0;
        size_t size = be16(data + position);
        if (size < 2 || size > length - position) return 0;
        const uint8_t *body = data + position + 2;
        if (visit(marker, body, size - 2, context)) return 0;
        position += size;
        if (marker == 0xDA) position = end_of_entropy_data(data, length, position);
    }
    return 0;
}

static int visit_for_info(int marker, const uint8_t *body, size_t size, void *context) {
    dr_jpeg_info *info = context;
    if (is_frame(marker)) {
        if (info->frame_marker == 0 && size >= 6) {
            info->frame_marker = marker;
            info->precision = body[0];
            info->height = (int)be16(body + 1);
            info->width = (int)be16(body + 3);
            info->components = body[5];
            info->progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE;
            if (info->components > 4 || size < 6 + (size_t)info->components * 3) {
                info->components = 0;
                return 1;
            }
            for (int c = 0; c < info->components; c++) {
                info->h_samp[c] = body[6 + c * 3 + 1] >> 4;
                info->v_samp[c] = body[6 + c * 3 + 1] & 15;
            }
        }
    } else if (marker == 0xDA) {
        if (info->scans < LONG_MAX) info->scans++;
    } else if (marker == 0xE1) {
        // The first APP1 that says it is EXIF is the one, readable or not.
        if (!info->exif_found && size >= 4 && memcmp(body, "Exif", 4) == 0) {
            info->exif_found = 1;
            info->exif = dr_exif_tiff(body, size, 0, &info->exif_length);
        }
    } else if (marker == 0xE2) {
        if (size >= 14 && memcmp(body, "ICC_PROFILE\0", 12) == 0) info->icc_segments++;
    }
    return 0;
}

int dr_jpeg_inspect(const uint8_t *data, size_t length, dr_jpeg_info *info) {
    memset(info, 0, sizeof(*info));
    if (length < 4 || data[0] != 0xFF || data[1] != 0xD8) return DR_DECLINED;
    info->complete = walk(data, length, visit_for_info, info);
    if (info->frame_marker == 0 || info->components < 1 || info->width < 1 || info->height < 1) return DR_DECLINED;
    for (int c = 0; c < info->components; c++) {
        if (info->h_samp[c] < 1 || info->h_samp[c] > 4 || info->v_samp[c] < 1 || info->v_samp[c] > 4) return DR_DECLINED;
    }
    return 0;
}

int dr_jpeg_is_multiscan(const dr_jpeg_info *info) {
    return info->progressive || info->scans > 1;
}

size_t dr_jpeg_coefficient_bytes(const dr_jpeg_info *info) {
    if (!dr_jpeg_is_multiscan(info)) return 0;
    int h_max = 1, v_max = 1;
    for (int c = 0; c < info->components; c++) {
        if (info->h_samp[c] > h_max) h_max = info->h_samp[c];
        if (info->v_samp[c] > v_max) v_max = info->v_samp[c];
    }
    size_t total = 0;
    for (int c = 0; c < info->components; c++) {
        // Blocks across and down, as jdinput.c counts them, padded to the
        // component's sampling factor as jdcoefct.c allocates them.
        size_t across = ((size_t)info->width * (size_t)info->h_samp[c] + (size_t)h_max * 8 - 1) / ((size_t)h_max * 8);
        size_t down = ((size_t)info->height * (size_t)info->v_samp[c] + (size_t)v_max * 8 - 1) / ((size_t)v_max * 8);
        across = (across + (size_t)info->h_samp[c] - 1) / (size_t)info->h_samp[c] * (size_t)info->h_samp[c];
        down = (down + (size_t)info->v_samp[c] - 1) / (size_t)info->v_samp[c] * (size_t)info->v_samp[c];
        total += across * down * 64 * 2;
    }
    return total;
}

// MARK: - The colour profile

typedef struct {
    const uint8_t *segment[256];
    size_t size[256];
    int count;
    int declared;
    int broken;
} icc_parts;

static int visit_for_icc(int marker, const uint8_t *body, size_t size, void *context) {
    icc_parts *parts = context;
    if (marker != 0xE2 || size < 14 || memcmp(body, "ICC_PROFILE\0", 12) != 0) return 0;
    int sequence = body[12], count = body[13];
    if (sequence < 1 || count < 1 || sequence > count || (parts->declared && parts->declared != count) || parts->segment[sequence]) {
        parts->broken = 1;
        return 1;
    }
    parts->declared = count;
    parts->segment[sequence] = body + 14;
    parts->size[sequence] = size - 14;
    parts->count++;
    return 0;
}

size_t dr_jpeg_icc_profile(const uint8_t *data, size_t length, uint8_t *out, size_t capacity) {
    if (length < 4 || data[0] != 0xFF || data[1] != 0xD8) return 0;
    icc_parts parts;
    memset(&parts, 0, sizeof(parts));
    walk(data, length, visit_for_icc, &parts);
    if (parts.broken || parts.count == 0 || parts.count != parts.declared) return 0;
    size_t total = 0;
    for (int i = 1; i <= parts.declared; i++) total += parts.size[i];
    if (out && total <= capacity) {
        size_t at = 0;
        for (int i = 1; i <= parts.declared; i++) {
            memcpy(out + at, parts.segment[i], parts.size[i]);
            at += parts.size[i];
        }
    }
    return total;
}
