#include "darkroom_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "darkroom_exif.h"
#include "darkroom_resample.h"

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

/// The TIFF block of an APP1 "Exif" segment, after its 6-byte prefix.
static const uint8_t *exif_block(jpeg_saved_marker_ptr marker, size_t *size) {
    if (marker->marker != JPEG_APP0 + 1 || marker->data_length < 14 || memcmp(marker->data, "Exif\0\0", 6) != 0) return NULL;
    *size = marker->data_length - 6;
    return marker->data + 6;
}

static void read_orientation(struct jpeg_decompress_struct *cinfo, dr_image_header *header) {
    header->orientation = 1;
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        size_t size;
        const uint8_t *tiff = exif_block(marker, &size);
        int orientation = tiff ? dr_exif_orientation(tiff, size) : 1;
        if (orientation != 1) {
            header->orientation = orientation;
            return;
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

int dr_jpeg_read_header(const uint8_t *data, size_t length, dr_image_header *header) {
    struct jpeg_decompress_struct cinfo;
    error_manager errors;
    install_errors(&errors);
    cinfo.err = &errors.base;
    if (setjmp(errors.escape)) {
        jpeg_destroy_decompress(&cinfo);
        return DR_DECLINED;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    header->width = (int)cinfo.image_width;
    header->height = (int)cinfo.image_height;
    header->supported = cinfo.num_components == 3 && cinfo.jpeg_color_space == JCS_YCbCr;
    read_orientation(&cinfo, header);
    header->foreign_profile = read_foreign_profile(&cinfo);
    header->copyright = 0;
    for (jpeg_saved_marker_ptr marker = cinfo.marker_list; marker; marker = marker->next) {
        size_t size;
        const uint8_t *tiff = exif_block(marker, &size);
        if (tiff && dr_exif_has_tag(tiff, size, DR_EXIF_COPYRIGHT)) header->copyright = 1;
    }
    jpeg_destroy_decompress(&cinfo);
    return errors.base.num_warnings ? DR_DECLINED : DR_OK;
}

// MARK: - Decode and resample

typedef struct {
    struct jpeg_decompress_struct cinfo;
    error_manager errors;
    dr_resampler *resampler;
} decode_state;

static void release(decode_state *s) {
    jpeg_destroy_decompress(&s->cinfo);
    dr_resampler_free(s->resampler);
}

enum { BATCH = 16 };

int dr_jpeg_decode_resampled(const uint8_t *data, size_t length, int scale_denom,
                             int out_width, int out_height, uint8_t **pixels,
                             dr_cancelled cancelled, void *context) {
    decode_state *s = calloc(1, sizeof(decode_state));
    if (!s) return DR_DECLINED;
    install_errors(&s->errors);
    s->cinfo.err = &s->errors.base;
    if (setjmp(s->errors.escape)) {
        release(s);
        free(s);
        return DR_DECLINED;
    }
    jpeg_create_decompress(&s->cinfo);
    jpeg_mem_src(&s->cinfo, data, (unsigned long)length);
    jpeg_read_header(&s->cinfo, TRUE);
    if (s->cinfo.num_components != 3 || s->cinfo.jpeg_color_space != JCS_YCbCr) {
        release(s);
        free(s);
        return DR_DECLINED;
    }
    s->cinfo.scale_num = 1;
    s->cinfo.scale_denom = (unsigned)scale_denom;
    s->cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&s->cinfo);
    int in_width = (int)s->cinfo.output_width, in_height = (int)s->cinfo.output_height;
    int status = DR_DECLINED;
    if (out_width < 1 || out_height < 1 || out_width > in_width || out_height > in_height) goto done;
    // Rows are resampled as they arrive, so only a window of them is held.
    s->resampler = dr_resampler_new(in_width, in_height, 3, out_width, out_height);
    if (!s->resampler) goto done;
    while (s->cinfo.output_scanline < s->cinfo.output_height) {
        if (cancelled && cancelled(context)) {
            status = DR_CANCELLED;
            goto done;
        }
        JSAMPROW rows[BATCH];
        int room = dr_resampler_lend(s->resampler, rows, BATCH);
        if (room == 0) goto done;
        dr_resampler_push(s->resampler, (int)jpeg_read_scanlines(&s->cinfo, rows, (JDIMENSION)room));
    }
    jpeg_finish_decompress(&s->cinfo);
    if (s->errors.base.num_warnings) goto done;
    *pixels = dr_resampler_finish(s->resampler);
    status = *pixels ? DR_OK : DR_DECLINED;

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
        return DR_DECLINED;
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
    return DR_OK;
}

void dr_jpeg_free(void *pointer) {
    free(pointer);
}
