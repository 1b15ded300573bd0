#include "darkroom_png.h"

#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "darkroom_exif.h"
#include "darkroom_icc.h"

// MARK: - Chunks

static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

typedef struct {
    dr_image_header header;
    // The compressed pixels: the IDAT chunks' data, in order, in one run.
    size_t idat_count;
    size_t idat_bytes;
    const uint8_t *first_idat;
    size_t first_idat_chunk;
} png_layout;

/// Whether an iCCP chunk's profile (zlib-compressed after its name) is sRGB.
static int profile_is_srgb(const uint8_t *body, size_t size) {
    const uint8_t *end = memchr(body, 0, size < 80 ? size : 80);
    if (!end || (size_t)(end - body) + 2 > size || end[1] != 0) return 0;
    const uint8_t *compressed = end + 2;
    size_t compressed_size = size - (size_t)(compressed - body);
    enum { MAX_PROFILE = 4 << 20 };
    uint8_t *profile = malloc(MAX_PROFILE);
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    size_t inflated = 0;
    int srgb = profile && inflater &&
               libdeflate_zlib_decompress(inflater, compressed, compressed_size, profile, MAX_PROFILE, &inflated) == LIBDEFLATE_SUCCESS &&
               dr_icc_is_srgb(profile, inflated);
    libdeflate_free_decompressor(inflater);
    free(profile);
    return srgb;
}

/// Walks the chunks up to IEND, checking each one's length and CRC, in the
/// order libpng requires. Declines anything this path does not take, or
/// would read otherwise than libpng; libvips then reads it.
static int read_layout(const uint8_t *data, size_t length, png_layout *layout) {
    memset(layout, 0, sizeof(*layout));
    if (length < 8 + 25 || memcmp(data, signature, 8) != 0) return DR_DECLINED;
    size_t position = 8;
    int seen_header = 0, seen_end = 0, seen_exif = 0, seen_profile = 0, seen_palette = 0, supported = 1;
    // IDAT chunks must follow one another: libpng reads the first run only.
    int idat_run_over = 0;
    layout->header.orientation = 1;
    while (!seen_end) {
        if (length - position < 12) return DR_DECLINED;
        uint32_t size = be32(data + position);
        const uint8_t *type = data + position + 4;
        if (size > 0x7FFFFFFFu || length - position - 12 < size) return DR_DECLINED;
        const uint8_t *body = type + 4;
        if (libdeflate_crc32(0, type, 4 + (size_t)size) != be32(body + size)) return DR_DECLINED;
        int is_idat = memcmp(type, "IDAT", 4) == 0;
        if (layout->idat_count && !is_idat) idat_run_over = 1;
        if (!seen_header) {
            if (memcmp(type, "IHDR", 4) != 0 || size != 13) return DR_DECLINED;
            uint32_t width = be32(body), height = be32(body + 4);
            if (width == 0 || height == 0 || width > 0x7FFFFFFFu || height > 0x7FFFFFFFu) return DR_DECLINED;
            layout->header.width = (int)width;
            layout->header.height = (int)height;
            int depth = body[8], colour = body[9], compression = body[10], filter = body[11], interlace = body[12];
            if (compression != 0 || filter != 0 || interlace > 1) return DR_DECLINED;
            supported = depth == 8 && colour == 2 && interlace == 0;
            seen_header = 1;
        } else if (is_idat) {
            if (idat_run_over) return DR_DECLINED;
            if (layout->idat_count == 0) {
                layout->first_idat = body;
                layout->first_idat_chunk = position;
            }
            layout->idat_count++;
            layout->idat_bytes += size;
        } else if (memcmp(type, "IEND", 4) == 0) {
            seen_end = 1;
        } else if (memcmp(type, "IHDR", 4) == 0) {
            return DR_DECLINED;
        } else if (memcmp(type, "eXIf", 4) == 0) {
            // libvips sees the first one before the pixels, as libpng gives it.
            if (!seen_exif && layout->idat_count == 0) {
                layout->header.orientation = dr_exif_orientation(body, size);
                layout->header.copyright = dr_exif_has_tag(body, size, DR_EXIF_COPYRIGHT);
            }
            seen_exif = 1;
        } else if (memcmp(type, "iCCP", 4) == 0) {
            // libpng takes the first, before the palette and the pixels.
            if (!seen_profile && !seen_palette && layout->idat_count == 0 && !profile_is_srgb(body, size)) {
                layout->header.foreign_profile = 1;
                supported = 0;
            }
            seen_profile = 1;
        } else if (memcmp(type, "PLTE", 4) == 0) {
            seen_palette = 1;
        } else if (memcmp(type, "tRNS", 4) == 0 || memcmp(type, "acTL", 4) == 0) {
            // Transparency, an animation: libvips' business.
            supported = 0;
        } else if (!(type[0] & 0x20)) {
            // An unknown critical chunk.
            return DR_DECLINED;
        }
        position += 12 + (size_t)size;
    }
    if (layout->idat_count == 0) return DR_DECLINED;
    layout->header.supported = supported;
    return DR_OK;
}

int dr_png_read_header(const uint8_t *data, size_t length, dr_image_header *header) {
    png_layout layout;
    int status = read_layout(data, length, &layout);
    if (status == DR_OK) *header = layout.header;
    return status;
}

/// The IDAT chunks' data as one buffer: the first chunk itself when there
/// is one only, otherwise a copy (to be freed) of them all, in order.
static const uint8_t *compressed_pixels(const uint8_t *data, const png_layout *layout, uint8_t **copy) {
    *copy = NULL;
    if (layout->idat_count == 1) return layout->first_idat;
    uint8_t *joined = malloc(layout->idat_bytes ? layout->idat_bytes : 1);
    if (!joined) return NULL;
    // The run of IDAT chunks, from the first.
    size_t position = layout->first_idat_chunk, filled = 0;
    for (size_t i = 0; i < layout->idat_count; i++) {
        uint32_t size = be32(data + position);
        memcpy(joined + filled, data + position + 8, size);
        filled += size;
        position += 12 + (size_t)size;
    }
    *copy = joined;
    return joined;
}

// MARK: - Filters

// Without branches: on a photo the choice is a coin toss, and a
// mispredicted branch a byte cost more than the arithmetic.
static inline uint8_t paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    int nearest_bc = pb <= pc ? b : c;
    return (uint8_t)(pa <= pb && pa <= pc ? a : nearest_bc);
}

/// Undoes a row's filter in place; `prior` is the row above, unfiltered
/// (zeros for the first row). Returns nonzero for an unknown filter.
static int unfilter(int filter, uint8_t *row, const uint8_t *prior, size_t size) {
    enum { BPP = 3 };
    switch (filter) {
    case 0:
        return 0;
    case 1:
        for (size_t i = BPP; i < size; i++) row[i] = (uint8_t)(row[i] + row[i - BPP]);
        return 0;
    case 2:
        for (size_t i = 0; i < size; i++) row[i] = (uint8_t)(row[i] + prior[i]);
        return 0;
    case 3:
        for (size_t i = 0; i < BPP; i++) row[i] = (uint8_t)(row[i] + (prior[i] >> 1));
        for (size_t i = BPP; i < size; i++) row[i] = (uint8_t)(row[i] + ((row[i - BPP] + prior[i]) >> 1));
        return 0;
    case 4:
        for (size_t i = 0; i < BPP; i++) row[i] = (uint8_t)(row[i] + prior[i]);
        for (size_t i = BPP; i < size; i++) row[i] = (uint8_t)(row[i] + paeth(row[i - BPP], prior[i], prior[i - BPP]));
        return 0;
    default:
        return 1;
    }
}

// MARK: - Decode and resample

enum { SLACK = 64, CHECK_EVERY = 64 };

size_t dr_png_decode_bytes(const uint8_t *data, size_t length) {
    png_layout layout;
    if (read_layout(data, length, &layout) != DR_OK || !layout.header.supported) return SIZE_MAX;
    size_t row_bytes = (size_t)layout.header.width * 3, stride = row_bytes + 1;
    if ((size_t)layout.header.height > (SIZE_MAX / 2) / stride) return SIZE_MAX;
    size_t raw = stride * (size_t)layout.header.height + SLACK;
    return raw + row_bytes + SLACK + (layout.idat_count > 1 ? layout.idat_bytes : 0);
}

int dr_png_decode_resampled(const uint8_t *data, size_t length, const dr_resample_spec *spec, uint8_t **pixels,
                            dr_cancelled cancelled, void *context) {
    *pixels = NULL;
    png_layout layout;
    if (read_layout(data, length, &layout) != DR_OK || !layout.header.supported) return DR_DECLINED;
    int width = layout.header.width, height = layout.header.height;
    if (spec->in_width != width || spec->in_height != height) return DR_DECLINED;
    size_t row_bytes = (size_t)width * 3, stride = row_bytes + 1;
    if ((size_t)height > (SIZE_MAX / 2) / stride) return DR_DECLINED;
    size_t raw_bytes = stride * (size_t)height;
    dr_resample_spec rgb = *spec;
    rgb.in_bands = 3;

    int status = DR_DECLINED;
    uint8_t *joined = NULL, *raw = NULL, *zeros = NULL;
    struct libdeflate_decompressor *inflater = NULL;
    dr_resampler *resampler = NULL;
    const uint8_t *compressed = compressed_pixels(data, &layout, &joined);
    raw = malloc(raw_bytes + SLACK);
    zeros = calloc(1, row_bytes + SLACK);
    inflater = libdeflate_alloc_decompressor();
    resampler = dr_resampler_new(&rgb);
    if (!compressed || !raw || !zeros || !inflater || !resampler) goto done;
    memset(raw + raw_bytes, 0, SLACK);

    size_t inflated = 0;
    if (libdeflate_zlib_decompress(inflater, compressed, layout.idat_bytes, raw, raw_bytes, &inflated) != LIBDEFLATE_SUCCESS ||
        inflated != raw_bytes) {
        // Short, long or damaged: libvips says what is wrong.
        goto done;
    }
    const uint8_t *prior = zeros;
    for (int y = 0; y < height; y++) {
        if (y % CHECK_EVERY == 0 && cancelled && cancelled(context)) {
            status = DR_CANCELLED;
            goto done;
        }
        uint8_t *row = raw + (size_t)y * stride;
        if (unfilter(row[0], row + 1, prior, row_bytes) != 0) goto done;
        // Readable past its end: the next row follows, and after the last,
        // the slack.
        dr_resampler_push_row(resampler, row + 1);
        prior = row + 1;
    }
    *pixels = dr_resampler_finish(resampler);
    status = *pixels ? DR_OK : DR_DECLINED;

done:
    dr_resampler_free(resampler);
    libdeflate_free_decompressor(inflater);
    free(zeros);
    free(raw);
    free(joined);
    return status;
}

// MARK: - Writing, for the fuzzer

static uint8_t *put32(uint8_t *p, uint32_t value) {
    p[0] = (uint8_t)(value >> 24);
    p[1] = (uint8_t)(value >> 16);
    p[2] = (uint8_t)(value >> 8);
    p[3] = (uint8_t)value;
    return p + 4;
}

/// One chunk at `p`: length, type, body, CRC; returns the end.
static uint8_t *put_chunk(uint8_t *p, const char *type, const uint8_t *body, size_t size) {
    p = put32(p, (uint32_t)size);
    uint8_t *typed = p;
    memcpy(p, type, 4);
    if (size) memmove(p + 4, body, size);
    p += 4 + size;
    return put32(p, libdeflate_crc32(0, typed, 4 + size));
}

size_t dr_png_encode_filtered(const uint8_t *raw, size_t raw_length, int width, int height, uint8_t *out, size_t capacity) {
    if (width < 1 || height < 1 || raw_length != (size_t)height * ((size_t)width * 3 + 1)) return 0;
    struct libdeflate_compressor *compressor = libdeflate_alloc_compressor(1);
    if (!compressor) return 0;
    size_t bound = libdeflate_zlib_compress_bound(compressor, raw_length);
    size_t needed = 8 + 25 + 12 + bound + 12;
    if (needed > capacity) {
        libdeflate_free_compressor(compressor);
        return 0;
    }
    memcpy(out, signature, 8);
    uint8_t header[13];
    put32(header, (uint32_t)width);
    put32(header + 4, (uint32_t)height);
    header[8] = 8;  // bits
    header[9] = 2;  // RGB
    header[10] = header[11] = header[12] = 0;
    uint8_t *p = put_chunk(out + 8, "IHDR", header, 13);
    // The compressed pixels go straight where the IDAT's body is.
    size_t compressed = libdeflate_zlib_compress(compressor, raw, raw_length, p + 8, bound);
    libdeflate_free_compressor(compressor);
    if (compressed == 0) return 0;
    p = put_chunk(p, "IDAT", p + 8, compressed);
    p = put_chunk(p, "IEND", NULL, 0);
    return (size_t)(p - out);
}
