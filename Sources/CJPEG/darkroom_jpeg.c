#include "darkroom_jpeg.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

// MARK: - Errors: longjmp out of libjpeg, never print, count warnings

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf escape;
} error_manager;

static void on_error(j_common_ptr cinfo) {
    longjmp(((error_manager *)cinfo->err)->escape, 1);
}

// Warnings (a premature end, corrupt data) are counted, not printed: the
// caller declines the image, and libvips decides how to answer for it.
static void on_message(j_common_ptr cinfo, int level) {
    if (level < 0) {
        cinfo->err->num_warnings++;
    }
}

static void on_output(j_common_ptr cinfo) {
    (void)cinfo;
}

static void install_errors(error_manager *errors) {
    jpeg_std_error(&errors->base);
    errors->base.error_exit = on_error;
    errors->base.emit_message = on_message;
    errors->base.output_message = on_output;
}

// MARK: - Header and EXIF orientation

static unsigned read16(const uint8_t *p, int little) {
    return little ? (unsigned)(p[0] | p[1] << 8) : (unsigned)(p[0] << 8 | p[1]);
}

static uint32_t read32(const uint8_t *p, int little) {
    return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                  : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/// Whether IFD0 of an APP1 "Exif" segment has the tag `wanted`.
static int exif_has_tag(const uint8_t *data, size_t length, unsigned wanted) {
    if (length < 14 || memcmp(data, "Exif\0\0", 6) != 0) return 0;
    const uint8_t *tiff = data + 6;
    size_t size = length - 6;
    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') little = 0;
    else return 0;
    uint32_t ifd = read32(tiff + 4, little);
    if (ifd > size - 2) return 0;
    unsigned count = read16(tiff + ifd, little);
    for (unsigned i = 0; i < count; i++) {
        size_t entry = (size_t)ifd + 2 + (size_t)i * 12;
        if (entry + 12 > size) return 0;
        if (read16(tiff + entry, little) == wanted) return 1;
    }
    return 0;
}

/// The orientation tag of IFD0 in an APP1 "Exif" segment, 1 when absent.
static int exif_orientation(const uint8_t *data, size_t length) {
    if (length < 14 || memcmp(data, "Exif\0\0", 6) != 0) return 1;
    const uint8_t *tiff = data + 6;
    size_t size = length - 6;
    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') little = 0;
    else return 1;
    uint32_t ifd = read32(tiff + 4, little);
    if (ifd > size - 2) return 1;
    unsigned count = read16(tiff + ifd, little);
    for (unsigned i = 0; i < count; i++) {
        size_t entry = (size_t)ifd + 2 + (size_t)i * 12;
        if (entry + 12 > size) return 1;
        if (read16(tiff + entry, little) == 0x0112) {
            unsigned value = read16(tiff + entry + 8, little);
            return value >= 1 && value <= 8 ? (int)value : 1;
        }
    }
    return 1;
}

static void read_orientation(struct jpeg_decompress_struct *cinfo, dr_jpeg_header *header) {
    header->orientation = 1;
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1) {
            int orientation = exif_orientation(marker->data, marker->data_length);
            if (orientation != 1) {
                header->orientation = orientation;
                return;
            }
        }
    }
}

/// Whether `needle` occurs in the `length` bytes at `data`.
static int contains(const uint8_t *data, size_t length, const char *needle) {
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= length; i++) {
        if (memcmp(data + i, needle, n) == 0) return 1;
    }
    return 0;
}

/// An APP2 "ICC_PROFILE" segment whose profile does not name sRGB (in its
/// description, which the first segment carries).
static int read_foreign_profile(struct jpeg_decompress_struct *cinfo) {
    int found = 0;
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 2 || marker->data_length < 14 || memcmp(marker->data, "ICC_PROFILE\0", 12) != 0) continue;
        if (contains(marker->data, marker->data_length, "sRGB")) return 0;
        found = 1;
    }
    return found;
}

int dr_jpeg_read_header(const uint8_t *data, size_t length, dr_jpeg_header *header) {
    struct jpeg_decompress_struct cinfo;
    error_manager errors;
    install_errors(&errors);
    cinfo.err = &errors.base;
    if (setjmp(errors.escape)) {
        jpeg_destroy_decompress(&cinfo);
        return DR_JPEG_DECLINED;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    header->width = (int)cinfo.image_width;
    header->height = (int)cinfo.image_height;
    header->is_ycbcr = cinfo.num_components == 3 && cinfo.jpeg_color_space == JCS_YCbCr;
    read_orientation(&cinfo, header);
    header->foreign_profile = read_foreign_profile(&cinfo);
    header->copyright = 0;
    for (jpeg_saved_marker_ptr marker = cinfo.marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && exif_has_tag(marker->data, marker->data_length, 0x8298)) header->copyright = 1;
    }
    jpeg_destroy_decompress(&cinfo);
    return errors.base.num_warnings ? DR_JPEG_DECLINED : DR_JPEG_OK;
}

// MARK: - Lanczos-3 coefficients, in fixed point

// Weights are 16-bit with 14 fractional bits, so that two taps multiply and
// add in one SSE2 instruction (pmaddwd), as Pillow-SIMD does. Each output
// pixel's weights sum to exactly 1 << PRECISION.
enum { PRECISION = 14 };

typedef struct {
    int *start;       // first input index for each output index
    int *count;       // taps for each output index, rounded up to even
    int16_t *weights; // `taps` weights for each output index, zero-padded
    int taps;
} coefficients;

static double lanczos3(double x) {
    if (x == 0.0) return 1.0;
    if (x <= -3.0 || x >= 3.0) return 0.0;
    double px = M_PI * x;
    return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

static int make_coefficients(coefficients *c, int in_size, int out_size) {
    double scale = (double)in_size / out_size;
    double filter_scale = scale < 1.0 ? 1.0 : scale;
    double support = 3.0 * filter_scale;
    int taps = ((int)ceil(support) * 2 + 2) & ~1;
    c->taps = taps;
    c->start = malloc(sizeof(int) * (size_t)out_size);
    c->count = malloc(sizeof(int) * (size_t)out_size);
    c->weights = calloc((size_t)out_size * (size_t)taps, sizeof(int16_t));
    double *row = malloc(sizeof(double) * (size_t)taps);
    if (!c->start || !c->count || !c->weights || !row) {
        free(row);
        return -1;
    }
    for (int out = 0; out < out_size; out++) {
        double centre = (out + 0.5) * scale;
        int first = (int)(centre - support + 0.5);
        if (first < 0) first = 0;
        int last = (int)(centre + support + 0.5);
        if (last > in_size) last = in_size;
        int count = last - first;
        if (count > taps) count = taps;
        double total = 0;
        for (int i = 0; i < count; i++) {
            row[i] = lanczos3((first + i - centre + 0.5) / filter_scale);
            total += row[i];
        }
        int16_t *weights = c->weights + (size_t)out * (size_t)taps;
        int sum = 0, largest = 0;
        for (int i = 0; i < count; i++) {
            double w = total != 0 ? row[i] / total : 0;
            weights[i] = (int16_t)lround(w * (1 << PRECISION));
            sum += weights[i];
            if (weights[i] > weights[largest]) largest = i;
        }
        // Rounding must not brighten or darken: the remainder goes to the
        // largest weight.
        weights[largest] = (int16_t)(weights[largest] + (1 << PRECISION) - sum);
        c->start[out] = first;
        // Taps go in pairs; a padding tap has weight 0 (its pixel is read,
        // never used: the buffers have room past their ends).
        c->count[out] = (count + 1) & ~1;
    }
    free(row);
    return 0;
}

static void free_coefficients(coefficients *c) {
    free(c->start);
    free(c->count);
    free(c->weights);
}

static inline uint8_t clip8(int32_t value) {
    value >>= PRECISION;
    return value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
}

enum { HALF = 1 << (PRECISION - 1) };

#if defined(__SSE2__)
#include <emmintrin.h>

/// Two 16-bit weights, repeated in every 32-bit lane, for pmaddwd.
static inline __m128i weight_pair(const int16_t *w) {
    return _mm_set1_epi32((int32_t)((uint32_t)(uint16_t)w[0] | (uint32_t)(uint16_t)w[1] << 16));
}

/// One RGBX row to `out_width` RGBX pixels.
static void resample_row(const uint8_t *in, uint8_t *out, int out_width, const coefficients *c) {
    const __m128i zero = _mm_setzero_si128();
    for (int x = 0; x < out_width; x++) {
        const uint8_t *p = in + (size_t)c->start[x] * 4;
        const int16_t *w = c->weights + (size_t)x * (size_t)c->taps;
        __m128i sum = _mm_set1_epi32(HALF);
        for (int i = 0; i < c->count[x]; i += 2, p += 8) {
            // R0 G0 B0 X0 R1 G1 B1 X1 -> R0 R1 G0 G1 B0 B1 X0 X1, as 16 bits.
            __m128i two = _mm_loadl_epi64((const __m128i *)p);
            __m128i paired = _mm_unpacklo_epi8(_mm_unpacklo_epi8(two, _mm_srli_si128(two, 4)), zero);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(paired, weight_pair(w + i)));
        }
        sum = _mm_srai_epi32(sum, PRECISION);
        __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(sum, zero), zero);
        uint32_t pixel = (uint32_t)_mm_cvtsi128_si32(bytes) | 0xFF000000u;
        memcpy(out + (size_t)x * 4, &pixel, 4);
    }
}

/// One output row from `count` input rows `stride` bytes apart, weighted.
static void resample_column(const uint8_t *in, size_t stride, const int16_t *w, int count, uint8_t *out, size_t length) {
    const __m128i zero = _mm_setzero_si128();
    for (size_t x = 0; x < length; x += 8) {
        __m128i low = _mm_set1_epi32(HALF), high = low;
        const uint8_t *p = in + x;
        for (int i = 0; i < count; i += 2, p += 2 * stride) {
            __m128i a = _mm_loadl_epi64((const __m128i *)p);
            __m128i b = _mm_loadl_epi64((const __m128i *)(p + stride));
            __m128i ab = _mm_unpacklo_epi8(a, b);
            __m128i weights = weight_pair(w + i);
            low = _mm_add_epi32(low, _mm_madd_epi16(_mm_unpacklo_epi8(ab, zero), weights));
            high = _mm_add_epi32(high, _mm_madd_epi16(_mm_unpackhi_epi8(ab, zero), weights));
        }
        low = _mm_srai_epi32(low, PRECISION);
        high = _mm_srai_epi32(high, PRECISION);
        __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(low, high), zero);
        if (x + 8 <= length) {
            _mm_storel_epi64((__m128i *)(out + x), bytes);
        } else {
            uint32_t last = (uint32_t)_mm_cvtsi128_si32(bytes);
            memcpy(out + x, &last, length - x);
        }
    }
}
#else
static void resample_row(const uint8_t *in, uint8_t *out, int out_width, const coefficients *c) {
    for (int x = 0; x < out_width; x++) {
        const uint8_t *p = in + (size_t)c->start[x] * 4;
        const int16_t *w = c->weights + (size_t)x * (size_t)c->taps;
        int32_t r = HALF, g = HALF, b = HALF;
        for (int i = 0; i < c->count[x]; i++, p += 4) {
            r += p[0] * w[i];
            g += p[1] * w[i];
            b += p[2] * w[i];
        }
        out[x * 4 + 0] = clip8(r);
        out[x * 4 + 1] = clip8(g);
        out[x * 4 + 2] = clip8(b);
        out[x * 4 + 3] = 255;
    }
}

static void resample_column(const uint8_t *in, size_t stride, const int16_t *w, int count, uint8_t *out, size_t length) {
    for (size_t x = 0; x < length; x++) {
        int32_t sum = HALF;
        for (int i = 0; i < count; i++) sum += in[x + (size_t)i * stride] * w[i];
        out[x] = clip8(sum);
    }
}
#endif

// MARK: - Decode and resample

typedef struct {
    struct jpeg_decompress_struct cinfo;
    error_manager errors;
    uint8_t *lines;        // a batch of decoded rows
    uint8_t *horizontal;   // every row, resampled across
    uint8_t *result;
    coefficients across, down;
} decode_state;

static void release(decode_state *s) {
    jpeg_destroy_decompress(&s->cinfo);
    free(s->lines);
    free(s->horizontal);
    free(s->result);
    free_coefficients(&s->across);
    free_coefficients(&s->down);
}

enum { BATCH = 16 };

int dr_jpeg_decode_resampled(const uint8_t *data, size_t length, int scale_denom,
                             int out_width, int out_height, uint8_t **pixels,
                             dr_jpeg_cancelled cancelled, void *context) {
    decode_state *s = calloc(1, sizeof(decode_state));
    if (!s) return DR_JPEG_DECLINED;
    install_errors(&s->errors);
    s->cinfo.err = &s->errors.base;
    if (setjmp(s->errors.escape)) {
        release(s);
        free(s);
        return DR_JPEG_DECLINED;
    }
    jpeg_create_decompress(&s->cinfo);
    jpeg_mem_src(&s->cinfo, data, (unsigned long)length);
    jpeg_read_header(&s->cinfo, TRUE);
    if (s->cinfo.num_components != 3 || s->cinfo.jpeg_color_space != JCS_YCbCr) {
        release(s);
        free(s);
        return DR_JPEG_DECLINED;
    }
    s->cinfo.scale_num = 1;
    s->cinfo.scale_denom = (unsigned)scale_denom;
    s->cinfo.out_color_space = JCS_EXT_RGBX;
    jpeg_start_decompress(&s->cinfo);
    int in_width = (int)s->cinfo.output_width, in_height = (int)s->cinfo.output_height;
    int status = DR_JPEG_DECLINED;
    if (out_width < 1 || out_height < 1 || out_width > in_width || out_height > in_height) goto done;

    // Room past the ends: a padding tap reads one pixel, or one row, more.
    size_t in_row = (size_t)in_width * 4, out_row = (size_t)out_width * 4;
    s->lines = malloc(in_row * BATCH + 16);
    s->horizontal = malloc(out_row * ((size_t)in_height + 1) + 16);
    s->result = malloc(out_row * (size_t)out_height);
    if (!s->lines || !s->horizontal || !s->result) goto done;
    memset(s->horizontal + out_row * (size_t)in_height, 0, out_row + 16);
    if (make_coefficients(&s->across, in_width, out_width) != 0) goto done;
    if (make_coefficients(&s->down, in_height, out_height) != 0) goto done;

    // Across: each batch of decoded rows is resampled as it arrives, so only
    // the narrower rows are kept.
    JSAMPROW rows[BATCH];
    for (int i = 0; i < BATCH; i++) rows[i] = s->lines + in_row * (size_t)i;
    while (s->cinfo.output_scanline < s->cinfo.output_height) {
        if (cancelled && cancelled(context)) {
            status = DR_JPEG_CANCELLED;
            goto done;
        }
        int first = (int)s->cinfo.output_scanline;
        int read = (int)jpeg_read_scanlines(&s->cinfo, rows, BATCH);
        for (int i = 0; i < read; i++) {
            resample_row(rows[i], s->horizontal + out_row * (size_t)(first + i), out_width, &s->across);
        }
    }
    jpeg_finish_decompress(&s->cinfo);
    if (s->errors.base.num_warnings) goto done;

    // Down: each output row is a weighted sum of whole rows.
    for (int y = 0; y < out_height; y++) {
        resample_column(s->horizontal + out_row * (size_t)s->down.start[y], out_row,
                        s->down.weights + (size_t)y * (size_t)s->down.taps, s->down.count[y],
                        s->result + out_row * (size_t)y, out_row);
    }
    *pixels = s->result;
    s->result = NULL;
    status = DR_JPEG_OK;

done:
    release(s);
    free(s);
    return status;
}

// MARK: - Colour

void dr_jpeg_recombine(uint8_t *pixels, int width, int height, const int32_t m[9]) {
    size_t count = (size_t)width * (size_t)height;
    for (size_t i = 0; i < count; i++, pixels += 4) {
        int32_t r = pixels[0], g = pixels[1], b = pixels[2];
        for (int c = 0; c < 3; c++) {
            int32_t v = (m[c * 3] * r + m[c * 3 + 1] * g + m[c * 3 + 2] * b + (1 << 15)) >> 16;
            pixels[c] = v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
        }
    }
}

// MARK: - Encode

int dr_jpeg_encode(const uint8_t *pixels, int stride, int left, int top, int width, int height,
                   int quality, uint8_t **out, size_t *out_length) {
    struct jpeg_compress_struct cinfo;
    error_manager errors;
    install_errors(&errors);
    cinfo.err = &errors.base;
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    if (setjmp(errors.escape)) {
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return DR_JPEG_DECLINED;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBX;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (quality >= 90) {
        cinfo.comp_info[0].h_samp_factor = 1;
        cinfo.comp_info[0].v_samp_factor = 1;
    }
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + ((size_t)(top + (int)cinfo.next_scanline) * (size_t)stride + (size_t)left) * 4);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *out_length = size;
    return DR_JPEG_OK;
}

void dr_jpeg_free(void *pointer) {
    free(pointer);
}
