#include "darkroom_jpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

#include "darkroom_exif.h"
#include "darkroom_icc.h"
#include "darkroom_jpeg_markers.h"

// Every entry point keeps its libjpeg state in one heap block: libjpeg
// reports errors by longjmp, after which a local changed since setjmp
// has no defined value, while the heap block's fields keep theirs.

// MARK: - Errors and the progress monitor

typedef struct {
    struct jpeg_error_mgr base;
    struct jpeg_progress_mgr progress;
    jmp_buf escape;
    /// Why the work stopped, when it was not libjpeg's own error.
    int stopped;
    long max_scans;
    dr_cancelled cancelled;
    void *context;
} guard;

static guard *guard_of(j_common_ptr cinfo) {
    return (guard *)cinfo->err;
}

static void on_error(j_common_ptr cinfo) {
    longjmp(guard_of(cinfo)->escape, 1);
}

// Warnings (a premature end, corrupt data) are counted, not printed; the
// monitor stops at the first.
static void on_message(j_common_ptr cinfo, int level) {
    if (level < 0) cinfo->err->num_warnings++;
}

static void on_output(j_common_ptr cinfo) {
    (void)cinfo;
}

static void stop(j_common_ptr cinfo, int reason) {
    guard_of(cinfo)->stopped = reason;
    longjmp(guard_of(cinfo)->escape, 1);
}

/// libjpeg calls this for every row of blocks it reads or writes, in every
/// scan, and at every scan's start.
static void on_progress(j_common_ptr cinfo) {
    guard *g = guard_of(cinfo);
    if (g->cancelled && g->cancelled(g->context)) stop(cinfo, DR_CANCELLED);
    if (cinfo->err->num_warnings) stop(cinfo, DR_DECLINED);
    if (cinfo->is_decompressor && g->max_scans > 0 && ((j_decompress_ptr)cinfo)->input_scan_number > g->max_scans) {
        stop(cinfo, DR_TOO_MANY_SCANS);
    }
}

static void install_guard(guard *g, dr_cancelled cancelled, void *context, long max_scans) {
    jpeg_std_error(&g->base);
    g->base.error_exit = on_error;
    g->base.emit_message = on_message;
    g->base.output_message = on_output;
    g->progress.progress_monitor = on_progress;
    g->cancelled = cancelled;
    g->context = context;
    g->max_scans = max_scans;
    g->stopped = 0;
}

/// What a longjmp out of libjpeg means.
static int status_after_escape(const guard *g) {
    if (g->stopped) return g->stopped;
    // libjpeg met its memory limit: with no backing store, it says so.
    if (g->base.msg_code == JERR_NO_BACKING_STORE) return DR_OVER_BUDGET;
    return DR_DECLINED;
}

// MARK: - Header

typedef struct {
    struct jpeg_decompress_struct cinfo;
    guard guard;
    int created;
} header_state;

int dr_jpeg_read_header(const uint8_t *data, size_t length, dr_image_header *header) {
    memset(header, 0, sizeof(*header));
    dr_jpeg_info info;
    if (dr_jpeg_inspect(data, length, &info) != DR_OK) return DR_DECLINED;
    header_state *s = calloc(1, sizeof(header_state));
    if (!s) return DR_DECLINED;
    install_guard(&s->guard, NULL, NULL, 0);
    s->cinfo.err = &s->guard.base;
    if (setjmp(s->guard.escape)) {
        if (s->created) jpeg_destroy_decompress(&s->cinfo);
        free(s);
        return DR_DECLINED;
    }
    jpeg_create_decompress(&s->cinfo);
    s->created = 1;
    s->cinfo.progress = &s->guard.progress;
    jpeg_mem_src(&s->cinfo, data, (unsigned long)length);
    jpeg_read_header(&s->cinfo, TRUE);
    header->width = (int)s->cinfo.image_width;
    header->height = (int)s->cinfo.image_height;
    header->supported = s->cinfo.num_components == 3 && s->cinfo.jpeg_color_space == JCS_YCbCr;
    int warnings = (int)s->guard.base.num_warnings;
    jpeg_destroy_decompress(&s->cinfo);
    free(s);

    // EXIF and the profile from the marker walk, as libvips reads them.
    header->orientation = info.exif ? dr_exif_orientation(info.exif, info.exif_length) : 1;
    header->copyright = info.exif ? dr_exif_has_tag(info.exif, info.exif_length, DR_EXIF_COPYRIGHT) : 0;
    if (info.icc_segments) {
        size_t size = dr_jpeg_icc_profile(data, length, NULL, 0);
        uint8_t *profile = size ? malloc(size) : NULL;
        header->foreign_profile = !(profile && dr_jpeg_icc_profile(data, length, profile, size) == size &&
                                    dr_icc_is_srgb(profile, size));
        free(profile);
    }
    return warnings ? DR_DECLINED : DR_OK;
}

// MARK: - Decode and resample

typedef struct {
    struct jpeg_decompress_struct cinfo;
    guard guard;
    int created;
    dr_resampler *resampler;
    uint8_t *scratch;
} decode_state;

static void release(decode_state *s) {
    if (s->created) jpeg_destroy_decompress(&s->cinfo);
    dr_resampler_free(s->resampler);
    free(s->scratch);
    free(s);
}

enum { BATCH = 16 };

int dr_jpeg_decode_resampled(const uint8_t *data, size_t length, const dr_jpeg_decode_options *options, uint8_t **pixels) {
    *pixels = NULL;
    decode_state *s = calloc(1, sizeof(decode_state));
    if (!s) return DR_DECLINED;
    install_guard(&s->guard, options->cancelled, options->context, options->max_scans);
    s->cinfo.err = &s->guard.base;
    if (setjmp(s->guard.escape)) {
        int status = status_after_escape(&s->guard);
        release(s);
        return status;
    }
    jpeg_create_decompress(&s->cinfo);
    s->created = 1;
    s->cinfo.progress = &s->guard.progress;
    if (options->max_memory) s->cinfo.mem->max_memory_to_use = (long)options->max_memory;
    jpeg_mem_src(&s->cinfo, data, (unsigned long)length);
    jpeg_read_header(&s->cinfo, TRUE);
    if (s->cinfo.num_components != 3 || s->cinfo.jpeg_color_space != JCS_YCbCr) {
        release(s);
        return DR_DECLINED;
    }
    s->cinfo.scale_num = 1;
    s->cinfo.scale_denom = (unsigned)options->scale_denom;
    s->cinfo.out_color_space = JCS_RGB;
    jpeg_calc_output_dimensions(&s->cinfo);
    dr_resample_spec spec = options->resample;
    spec.in_bands = 3;
    // libvips keeps the whole pixels of a scaled decode, rounding down
    // where libjpeg rounds up: the last part-row and part-column go.
    if ((int)(s->cinfo.image_width / s->cinfo.scale_denom) != spec.in_width ||
        (int)(s->cinfo.image_height / s->cinfo.scale_denom) != spec.in_height ||
        (int)s->cinfo.output_width - spec.in_width > 1 || (int)s->cinfo.output_height - spec.in_height > 1) {
        release(s);
        return DR_DECLINED;
    }
    // Rows are resampled as they arrive, so only a window of them is held.
    s->resampler = dr_resampler_new(&spec);
    if (!s->resampler) {
        release(s);
        return DR_DECLINED;
    }
    // A multi-scan file's scans are all read here.
    jpeg_start_decompress(&s->cinfo);
    // Rows are lent one wider than the resampler takes: room for
    // libjpeg's part-column, which the resampler leaves alone.
    while ((int)s->cinfo.output_scanline < spec.in_height) {
        JSAMPROW rows[BATCH];
        int room = dr_resampler_lend(s->resampler, rows, BATCH);
        if (room == 0) {
            release(s);
            return DR_DECLINED;
        }
        dr_resampler_push(s->resampler, (int)jpeg_read_scanlines(&s->cinfo, rows, (JDIMENSION)room));
    }
    // The part-row libvips drops is still read, so that libjpeg finishes
    // the file (and says whether anything after it is amiss).
    while (s->cinfo.output_scanline < s->cinfo.output_height) {
        if (!s->scratch && !(s->scratch = malloc((size_t)s->cinfo.output_width * 3))) {
            release(s);
            return DR_DECLINED;
        }
        JSAMPROW row = s->scratch;
        jpeg_read_scanlines(&s->cinfo, &row, 1);
    }
    jpeg_finish_decompress(&s->cinfo);
    int status = DR_DECLINED;
    if (!s->guard.base.num_warnings) {
        *pixels = dr_resampler_finish(s->resampler);
        status = *pixels ? DR_OK : DR_DECLINED;
    }
    release(s);
    return status;
}

// MARK: - Encode

/// The JPEG's bytes, in a buffer this file owns (libjpeg's own memory
/// destination frees its first buffer when it grows, which leaves the
/// caller a pointer to freed memory if an error follows).
typedef struct {
    struct jpeg_destination_mgr base;
    uint8_t *buffer;
    size_t capacity;
    size_t length;
} memory_destination;

static void destination_init(j_compress_ptr cinfo) {
    memory_destination *d = (memory_destination *)cinfo->dest;
    d->base.next_output_byte = d->buffer;
    d->base.free_in_buffer = d->capacity;
}

static boolean destination_grow(j_compress_ptr cinfo) {
    memory_destination *d = (memory_destination *)cinfo->dest;
    size_t capacity = d->capacity * 2;
    uint8_t *grown = realloc(d->buffer, capacity);
    if (!grown) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    d->base.next_output_byte = grown + d->capacity;
    d->base.free_in_buffer = capacity - d->capacity;
    d->buffer = grown;
    d->capacity = capacity;
    return TRUE;
}

static void destination_term(j_compress_ptr cinfo) {
    memory_destination *d = (memory_destination *)cinfo->dest;
    d->length = d->capacity - d->base.free_in_buffer;
}

typedef struct {
    struct jpeg_compress_struct cinfo;
    guard guard;
    memory_destination destination;
    int created;
} encode_state;

int dr_jpeg_encode(const uint8_t *pixels, int width, int height, int quality, uint8_t **out, size_t *out_length) {
    *out = NULL;
    *out_length = 0;
    encode_state *s = calloc(1, sizeof(encode_state));
    if (!s) return DR_DECLINED;
    install_guard(&s->guard, NULL, NULL, 0);
    s->cinfo.err = &s->guard.base;
    if (setjmp(s->guard.escape)) {
        if (s->created) jpeg_destroy_compress(&s->cinfo);
        free(s->destination.buffer);
        free(s);
        return DR_DECLINED;
    }
    jpeg_create_compress(&s->cinfo);
    s->created = 1;
    s->destination.capacity = 16384;
    s->destination.buffer = malloc(s->destination.capacity);
    if (!s->destination.buffer) ERREXIT1(&s->cinfo, JERR_OUT_OF_MEMORY, 10);
    s->destination.base.init_destination = destination_init;
    s->destination.base.empty_output_buffer = destination_grow;
    s->destination.base.term_destination = destination_term;
    s->cinfo.dest = &s->destination.base;
    s->cinfo.image_width = (JDIMENSION)width;
    s->cinfo.image_height = (JDIMENSION)height;
    s->cinfo.input_components = 4;
    s->cinfo.in_color_space = JCS_EXT_RGBX;
    jpeg_set_defaults(&s->cinfo);
    jpeg_set_quality(&s->cinfo, quality, TRUE);
    // Huffman tables made for this image's coefficients, as libvips'
    // saver is asked for them and as imgproxy and thumbor write JPEG.
    s->cinfo.optimize_coding = TRUE;
    if (quality >= 90) {
        s->cinfo.comp_info[0].h_samp_factor = 1;
        s->cinfo.comp_info[0].v_samp_factor = 1;
    }
    jpeg_start_compress(&s->cinfo, TRUE);
    while (s->cinfo.next_scanline < s->cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + (size_t)s->cinfo.next_scanline * (size_t)width * 4);
        jpeg_write_scanlines(&s->cinfo, &row, 1);
    }
    jpeg_finish_compress(&s->cinfo);
    jpeg_destroy_compress(&s->cinfo);
    *out = s->destination.buffer;
    *out_length = s->destination.length;
    free(s);
    return DR_OK;
}

void dr_jpeg_free(void *pointer) {
    free(pointer);
}
