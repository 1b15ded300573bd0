// Fixed-arity wrappers for libvips' variadic functions and macros, which
// Swift cannot call directly. Every function returns 0 on success and -1 on
// failure, with the reason in vips_error_buffer().
#ifndef DARKROOM_CVIPS_SHIM_H
#define DARKROOM_CVIPS_SHIM_H

#include <vips/vips.h>
#include <malloc.h>

// MARK: - Runtime

/// Starts libvips once, with the settings an image server needs:
/// no operation cache (each request is new work, and the cache holds
/// references to input buffers), one worker thread per call (our queues do
/// the parallel work), and only the loaders we trust.
static inline int darkroom_vips_start(const char *argv0) {
    if (VIPS_INIT(argv0) != 0) {
        return -1;
    }
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    // No run-time generated SIMD code (orc): under hours of load from two
    // processing threads, liborc 0.4.33 crashed twice in its own code
    // allocator. libvips has plain C for every operation it vectorises.
    vips_vector_set_enabled(FALSE);
    // Block every loader, then allow only the formats we decode.
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpeg", FALSE);
    vips_operation_block_set("VipsForeignLoadPng", FALSE);
    vips_operation_block_set("VipsForeignLoadWebp", FALSE);
    vips_operation_block_set("VipsForeignLoadHeif", FALSE);
    vips_operation_block_set("VipsForeignLoadTiff", FALSE);
    vips_operation_block_set("VipsForeignLoadNsgif", FALSE);
    return 0;
}

/// Where libvips' (and libjpeg's, libpng's...) warnings go: a function of
/// the caller's, never the terminal.
typedef void (*darkroom_vips_log_function)(const char *domain, int level, const char *message);

static void darkroom_vips_log_trampoline(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer sink) {
    ((darkroom_vips_log_function)sink)(domain, (int)level, message);
}

static inline void darkroom_vips_route_log(darkroom_vips_log_function sink) {
    // Info and debug stay with GLib's default handler, which drops them
    // unless G_MESSAGES_DEBUG asks for them: no call into Swift for those.
    GLogLevelFlags levels = (GLogLevelFlags)(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE);
    g_log_set_handler("VIPS", levels, darkroom_vips_log_trampoline, (gpointer)sink);
    g_log_set_handler("GLib-GObject", levels, darkroom_vips_log_trampoline, (gpointer)sink);
}

static inline void darkroom_vips_unref(VipsImage *image) {
    g_object_unref(image);
}

// MARK: - Loading

// Loaders take the access mode: sequential (streaming, the default) or
// random, for images that are rotated by their EXIF orientation: rotating
// reads the decoded lines out of order, which a sequential JPEG source
// cannot do at large sizes.

/// JPEG with shrink-on-load: libjpeg decodes at 1/shrink of the size
/// (1, 2, 4 or 8), which is where most of a thumbnail's time is saved.
static inline int darkroom_vips_jpegload(const void *buf, size_t len, VipsImage **out, int shrink, int access) {
    return vips_jpegload_buffer((void *)buf, len, out,
                                "shrink", shrink,
                                "access", (VipsAccess)access,
                                "fail_on", VIPS_FAIL_ON_TRUNCATED,
                                NULL);
}

/// WebP: `pages` frames from frame `page` (1 for a still image), stacked
/// top to bottom with their "page-height", "delay" and "loop".
static inline int darkroom_vips_webpload(const void *buf, size_t len, VipsImage **out, double scale, int access, int page, int pages) {
    return vips_webpload_buffer((void *)buf, len, out,
                                "scale", scale,
                                "page", page,
                                "n", pages,
                                "access", (VipsAccess)access,
                                "fail_on", VIPS_FAIL_ON_TRUNCATED,
                                NULL);
}

static inline int darkroom_vips_pngload(const void *buf, size_t len, VipsImage **out, int access) {
    return vips_pngload_buffer((void *)buf, len, out,
                               "access", (VipsAccess)access,
                               "fail_on", VIPS_FAIL_ON_TRUNCATED,
                               NULL);
}

/// HEIF and AVIF; with `thumbnail`, the embedded thumbnail where there is
/// one (else the primary image).
static inline int darkroom_vips_heifload(const void *buf, size_t len, VipsImage **out, int access, int thumbnail) {
    return vips_heifload_buffer((void *)buf, len, out,
                                "access", (VipsAccess)access,
                                "thumbnail", thumbnail,
                                "fail_on", VIPS_FAIL_ON_TRUNCATED,
                                NULL);
}

/// TIFF: `pages` pages from page `page`, stacked (pages of one size only).
static inline int darkroom_vips_tiffload(const void *buf, size_t len, VipsImage **out, int access, int page, int pages) {
    return vips_tiffload_buffer((void *)buf, len, out,
                                "access", (VipsAccess)access,
                                "page", page,
                                "n", pages,
                                "fail_on", VIPS_FAIL_ON_TRUNCATED,
                                NULL);
}

/// GIF: `pages` frames from frame `page`, stacked as WebP's are.
static inline int darkroom_vips_gifload(const void *buf, size_t len, VipsImage **out, int access, int page, int pages) {
    return vips_gifload_buffer((void *)buf, len, out,
                               "access", (VipsAccess)access,
                               "fail_on", VIPS_FAIL_ON_TRUNCATED,
                               "page", page,
                               "n", pages,
                               NULL);
}

/// JPEG XL, whose loader libvips marks untrusted: blocked until
/// darkroom_vips_allow_jxl.
static inline int darkroom_vips_jxlload(const void *buf, size_t len, VipsImage **out, int access) {
    return vips_jxlload_buffer((void *)buf, len, out,
                               "access", (VipsAccess)access,
                               "fail_on", VIPS_FAIL_ON_TRUNCATED,
                               NULL);
}

/// SVG from memory, rendered by librsvg at `scale` (1: a px a pixel),
/// within librsvg's own limits (no "unlimited"). libvips marks the loader
/// untrusted: blocked until darkroom_vips_allow_svg.
static inline int darkroom_vips_svgload(const void *buf, size_t len, VipsImage **out, double scale) {
    return vips_svgload_buffer((void *)buf, len, out, "scale", scale, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/// Unblocks the SVG loader from memory (not the file loader), for a
/// process that opts in.
static inline void darkroom_vips_allow_svg(void) {
    vips_operation_block_set("VipsForeignLoadSvgBuffer", FALSE);
}

/// PNG without compression or filters: a rendered image handed on to be
/// read again at once, where deflate would only cost time.
static inline int darkroom_vips_pngsave_stored(VipsImage *in, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, "compression", 0, "filter", VIPS_FOREIGN_PNG_FILTER_NONE, "strip", TRUE, NULL);
}

/// Unblocks libvips' JPEG XL loader and saver, for a process that opts in.
static inline void darkroom_vips_allow_jxl(void) {
    vips_operation_block_set("VipsForeignLoadJxl", FALSE);
    vips_operation_block_set("VipsForeignSaveJxl", FALSE);
}

// MARK: - Header

static inline int darkroom_vips_width(const VipsImage *image) { return vips_image_get_width(image); }
static inline int darkroom_vips_height(const VipsImage *image) { return vips_image_get_height(image); }
static inline int darkroom_vips_bands(const VipsImage *image) { return vips_image_get_bands(image); }
static inline int darkroom_vips_has_alpha(VipsImage *image) { return vips_image_hasalpha(image); }
static inline int darkroom_vips_orientation(VipsImage *image) { return vips_image_get_orientation(image); }
static inline int darkroom_vips_page_count(VipsImage *image) { return vips_image_get_n_pages(image); }
/// One frame's height in a stack of frames (the whole height when the
/// image is not one).
static inline int darkroom_vips_page_height(VipsImage *image) { return vips_image_get_page_height(image); }

/// The metadata field `name` as text (libvips' form for EXIF fields:
/// "value (description, type, ...)"), or NULL when there is none. Valid
/// while the image is.
static inline const char *darkroom_vips_field_string(VipsImage *image, const char *name) {
    const char *text = NULL;
    if (vips_image_get_typeof(image, name) == 0 || vips_image_get_string(image, name, &text) != 0) {
        vips_error_clear();
        return NULL;
    }
    return text;
}

/// `in` with an opaque alpha band added when it has none.
static inline int darkroom_vips_with_alpha(VipsImage *in, VipsImage **out) {
    if (vips_image_hasalpha(in)) {
        return vips_copy(in, out, NULL);
    }
    return vips_addalpha(in, out, NULL);
}

/// The pixels, row by row, into a buffer to be freed with g_free.
static inline void *darkroom_vips_pixels(VipsImage *image, size_t *size) {
    return vips_image_write_to_memory(image, size);
}
static inline int darkroom_vips_interpretation(VipsImage *image) { return (int)vips_image_get_interpretation(image); }
/// Bytes a band of a pixel takes (1 for 8-bit, 2 for 16-bit...).
static inline int darkroom_vips_bytes_per_sample(VipsImage *image) { return (int)vips_format_sizeof(vips_image_get_format(image)); }
/// Whether the loader says the file is interlaced (an Adam7 PNG, which
/// libpng can only give whole).
static inline int darkroom_vips_interlaced(VipsImage *image) {
    int interlaced = 0;
    if (vips_image_get_typeof(image, "interlaced") == 0 || vips_image_get_int(image, "interlaced", &interlaced) != 0) {
        vips_error_clear();
        return 0;
    }
    return interlaced;
}
static inline int darkroom_vips_band_format(VipsImage *image) { return (int)vips_image_get_format(image); }
static inline int darkroom_vips_has_icc(VipsImage *image) {
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

// MARK: - Colour

/// The embedded ICC profile's bytes (valid while the image is), or NULL.
/// Whether it is sRGB is the caller's one rule to decide (CThumbnail's
/// dr_icc_is_srgb), for libvips' path and the thumbnail path alike.
static inline const void *darkroom_vips_icc_profile(VipsImage *image, size_t *length) {
    const void *data;
    if (vips_image_get_typeof(image, VIPS_META_ICC_NAME) == 0 ||
        vips_image_get_blob(image, VIPS_META_ICC_NAME, &data, length) != 0) {
        vips_error_clear();
        return NULL;
    }
    return data;
}

/// A 16-bit source kept at 16 bits (imgproxy's preserve_hdr): 16-bit RGB
/// (or 16-bit grey, kept grey), alpha kept; CMYK and foreign profiles
/// through lcms at 16 bits.
static inline int darkroom_vips_to_srgb16(VipsImage *in, VipsImage **out, int transform_profile) {
    VipsInterpretation interpretation = vips_image_get_interpretation(in);
    if (interpretation == VIPS_INTERPRETATION_CMYK) {
        return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "input_profile", "cmyk", "depth", 16, NULL);
    }
    if (transform_profile && vips_icc_transform(in, out, "srgb", "embedded", TRUE, "depth", 16, NULL) == 0) {
        return 0;
    }
    vips_error_clear();
    return vips_colourspace(in, out, interpretation == VIPS_INTERPRETATION_GREY16 ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_RGB16, NULL);
}

/// Any input (CMYK, 16-bit, grey, Lab...) to 8-bit sRGB, alpha kept.
/// CMYK goes through its embedded profile, or libvips' built-in one; an
/// RGB image through its embedded profile when the caller has found it
/// foreign (`transform_profile`).
static inline int darkroom_vips_to_srgb8(VipsImage *in, VipsImage **out, int transform_profile) {
    VipsImage *t = NULL;
    int result;
    if (vips_image_get_interpretation(in) == VIPS_INTERPRETATION_CMYK) {
        result = vips_icc_transform(in, &t, "srgb",
                                    "embedded", TRUE,
                                    "input_profile", "cmyk",
                                    "depth", 8,
                                    NULL);
    } else if (transform_profile &&
               vips_icc_transform(in, &t, "srgb", "embedded", TRUE, "depth", 8, NULL) == 0) {
        result = 0;
    } else {
        // No profile, an sRGB one, or one lcms cannot use: as sRGB.
        vips_error_clear();
        result = vips_colourspace(in, &t, VIPS_INTERPRETATION_sRGB, NULL);
    }
    if (result != 0) {
        return -1;
    }
    if (vips_image_get_format(t) == VIPS_FORMAT_UCHAR) {
        *out = t;
        return 0;
    }
    result = vips_cast(t, out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(t);
    return result;
}

/// A 3x3 colour matrix on the first three bands, clipped to 0..255, with
/// any alpha band passed through untouched.
static inline int darkroom_vips_recomb3(VipsImage *in, VipsImage **out, const double matrix[9]) {
    VipsImage *m = vips_image_new_matrix_from_array(3, 3, matrix, 9);
    if (m == NULL) {
        return -1;
    }
    VipsImage *colour = NULL, *alpha = NULL, *mixed = NULL, *clipped = NULL;
    int result = -1;
    int hasAlpha = vips_image_get_bands(in) == 4;
    if (hasAlpha) {
        if (vips_extract_band(in, &colour, 0, "n", 3, NULL) != 0) goto done;
        if (vips_extract_band(in, &alpha, 3, NULL) != 0) goto done;
    } else {
        colour = in;
        g_object_ref(colour);
    }
    if (vips_recomb(colour, &mixed, m, NULL) != 0) goto done;
    // recomb gives float; cast rounds and clips to 0..255.
    if (vips_cast(mixed, &clipped, VIPS_FORMAT_UCHAR, "shift", FALSE, NULL) != 0) goto done;
    if (hasAlpha) {
        result = vips_bandjoin2(clipped, alpha, out, NULL);
    } else {
        *out = clipped;
        clipped = NULL;
        result = 0;
    }
done:
    if (clipped) g_object_unref(clipped);
    if (mixed) g_object_unref(mixed);
    if (alpha) g_object_unref(alpha);
    if (colour) g_object_unref(colour);
    g_object_unref(m);
    return result;
}

/// `in` computed into a new memory image of its own, whose pixels the
/// caller may then change in place (vips_image_copy_memory may hand back
/// `in` itself).
static inline int darkroom_vips_render_to_new_memory(VipsImage *in, VipsImage **out) {
    VipsImage *memory = vips_image_new_memory();
    if (vips_image_write(in, memory) != 0) {
        g_object_unref(memory);
        return -1;
    }
    *out = memory;
    return 0;
}

/// The first pixel of a memory image, rows one after the other.
static inline VipsPel *darkroom_vips_memory_pixels(VipsImage *image) { return VIPS_IMAGE_ADDR(image, 0, 0); }

// The pixels of the whole chain, computed once into memory, so that the
// image can be saved more than once.
static inline int darkroom_vips_copy_memory(VipsImage *in, VipsImage **out) {
    *out = vips_image_copy_memory(in);
    return *out == NULL ? -1 : 0;
}

static inline int darkroom_vips_grayscale(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_B_W, NULL);
}

// MARK: - Arithmetic, for the colour adjustments

/// Bands `first` to `first + n - 1`.
static inline int darkroom_vips_extract_bands(VipsImage *in, VipsImage **out, int first, int n) {
    return vips_extract_band(in, out, first, "n", n, NULL);
}

static inline int darkroom_vips_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out) {
    return vips_bandjoin2(a, b, out, NULL);
}

/// out = in * a + b, a constant a band (or one for every band; a
/// one-band image with n constants becomes n bands), in float.
static inline int darkroom_vips_linear(VipsImage *in, VipsImage **out, const double *a, const double *b, int n) {
    return vips_linear(in, out, (double *)a, (double *)b, n, NULL);
}

static inline int darkroom_vips_colourspace(VipsImage *in, VipsImage **out, int interpretation) {
    return vips_colourspace(in, out, (VipsInterpretation)interpretation, NULL);
}

static inline int darkroom_vips_add(VipsImage *a, VipsImage *b, VipsImage **out) {
    return vips_add(a, b, out, NULL);
}

static inline int darkroom_vips_multiply(VipsImage *a, VipsImage *b, VipsImage **out) {
    return vips_multiply(a, b, out, NULL);
}

/// a / b; 0 where b is 0.
static inline int darkroom_vips_divide(VipsImage *a, VipsImage *b, VipsImage **out) {
    return vips_divide(a, b, out, NULL);
}

/// `sub` put into `main` at (x, y).
static inline int darkroom_vips_insert(VipsImage *main, VipsImage *sub, VipsImage **out, int x, int y) {
    return vips_insert(main, sub, out, x, y, NULL);
}

/// A 3 x 3 convolution of `kernel` (row by row) divided by `scale`, in
/// float.
static inline int darkroom_vips_conv3(VipsImage *in, VipsImage **out, const double *kernel, double scale) {
    VipsImage *mask = vips_image_new_matrix_from_array(3, 3, kernel, 9);
    if (mask == NULL) return -1;
    vips_image_set_double(mask, "scale", scale);
    int result = vips_conv(in, out, mask, "precision", VIPS_PRECISION_FLOAT, NULL);
    g_object_unref(mask);
    return result;
}

/// A two-band image of each pixel's x and y.
static inline int darkroom_vips_xyz(VipsImage **out, int width, int height) {
    return vips_xyz(out, width, height, NULL);
}

/// The bands of `in` summed with these weights, into one band.
static inline int darkroom_vips_weighted_sum2(VipsImage *in, VipsImage **out, double a, double b) {
    VipsImage *matrix = vips_image_new_matrix_from_array(2, 1, (double[]){a, b}, 2);
    if (matrix == NULL) return -1;
    int result = vips_recomb(in, out, matrix, NULL);
    g_object_unref(matrix);
    return result;
}

/// To 8 bits, values clipped to 0...255.
static inline int darkroom_vips_cast_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast_uchar(in, out, NULL);
}

// MARK: - Geometry

static inline int darkroom_vips_autorot(VipsImage *in, VipsImage **out, int orientation) {
    // The orientation both engines read (Darkroom's EXIF reader for the
    // formats the thumbnail path takes), set on a copy for vips_autorot.
    VipsImage *tagged = NULL;
    if (vips_copy(in, &tagged, NULL) != 0) return -1;
    vips_image_set_int(tagged, VIPS_META_ORIENTATION, orientation);
    int result = vips_autorot(tagged, out, NULL);
    g_object_unref(tagged);
    return result;
}

/// Turns by a quarter turn clockwise `quarters` times (1, 2 or 3).
static inline int darkroom_vips_rot(VipsImage *in, VipsImage **out, int quarters) {
    VipsAngle angle = quarters == 1 ? VIPS_ANGLE_D90 : quarters == 2 ? VIPS_ANGLE_D180 : VIPS_ANGLE_D270;
    return vips_rot(in, out, angle, NULL);
}

/// Mirrors left to right (horizontal) or top to bottom.
static inline int darkroom_vips_flip(VipsImage *in, VipsImage **out, int horizontal) {
    return vips_flip(in, out, horizontal ? VIPS_DIRECTION_HORIZONTAL : VIPS_DIRECTION_VERTICAL, NULL);
}

/// Fills what is transparent with an RGB colour and drops the alpha band.
static inline int darkroom_vips_flatten(VipsImage *in, VipsImage **out, double red, double green, double blue) {
    VipsArrayDouble *background = vips_array_double_newv(3, red, green, blue);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/// Places the image at (left, top) on a canvas of width x height filled
/// with `colour` (one value per band).
static inline int darkroom_vips_embed(VipsImage *in, VipsImage **out, int left, int top, int width, int height,
                                      const double *colour, int bands) {
    VipsArrayDouble *background = vips_array_double_new(colour, bands);
    int result = vips_embed(in, out, left, top, width, height,
                            "extend", VIPS_EXTEND_BACKGROUND, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/// Blocks of size x size pixels, each the average of its pixels; the same
/// width and height as the input.
static inline int darkroom_vips_pixelate(VipsImage *in, VipsImage **out, int size) {
    VipsImage *small = NULL, *blocks = NULL;
    if (vips_shrink(in, &small, (double)size, (double)size, NULL)) return -1;
    int result = vips_zoom(small, &blocks, size, size, NULL);
    g_object_unref(small);
    if (result) return -1;
    result = vips_embed(blocks, out, 0, 0, vips_image_get_width(in), vips_image_get_height(in),
                        "extend", VIPS_EXTEND_COPY, NULL);
    g_object_unref(blocks);
    return result;
}

static inline int darkroom_vips_resize(VipsImage *in, VipsImage **out, double hscale, double vscale, int kernel) {
    return vips_resize(in, out, hscale, "vscale", vscale, "kernel", (VipsKernel)kernel, NULL);
}

static inline int darkroom_vips_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

/// Attention-based crop (libvips' saliency), for gravity "smart".
/// The attention measure reads the image more than once, which a sequential
/// source cannot do, so the (already resized) image is held in memory first.
/// The box of `in` that is not background: pixels differing from the
/// background by more than `threshold`. The background is `r, g, b` when
/// `has_background`, else the top-left pixel's colour. An image that is all
/// background gives width and height 0. `in` should be in memory: the
/// search reads every pixel, and the crop after it reads them again.
static inline int darkroom_vips_find_trim(VipsImage *in, double threshold, int has_background,
                                          double r, double g, double b,
                                          int *left, int *top, int *width, int *height) {
    double colour[3] = { r, g, b };
    int bands = vips_image_get_bands(in) - (vips_image_hasalpha(in) ? 1 : 0);
    if (bands < 1 || bands > 3) {
        vips_error("darkroom", "trim takes grey or RGB images");
        return -1;
    }
    if (!has_background) {
        double *vector = NULL;
        int n = 0;
        if (vips_getpoint(in, &vector, &n, 0, 0, NULL) != 0) {
            return -1;
        }
        for (int i = 0; i < bands && i < n; i++) {
            colour[i] = vector[i];
        }
        g_free(vector);
    }
    VipsArrayDouble *background = vips_array_double_new(colour, bands);
    int result = vips_find_trim(in, left, top, width, height, "threshold", threshold, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/// `mark` (8-bit sRGB, with or without alpha) laid over `base` at `left`,
/// `top`, its alpha multiplied by `opacity`; with `replicate`, tiled from
/// the top-left corner with `gap_x`, `gap_y` between tiles. The result
/// keeps `base`'s bands: alpha only if `base` had it.
static inline int darkroom_vips_watermark(VipsImage *base, VipsImage *mark, VipsImage **out,
                                          int left, int top, double opacity,
                                          int replicate, int gap_x, int gap_y) {
    VipsImage *t[8] = { NULL };
    int result = -1;
    VipsImage *overlay = mark;
    if (!vips_image_hasalpha(overlay)) {
        if (vips_addalpha(overlay, &t[0], NULL)) goto done;
        overlay = t[0];
    }
    if (opacity < 1) {
        int bands = vips_image_get_bands(overlay);
        if (vips_extract_band(overlay, &t[1], 0, "n", bands - 1, NULL) ||
            vips_extract_band(overlay, &t[2], bands - 1, NULL) ||
            vips_linear1(t[2], &t[3], opacity, 0, "uchar", TRUE, NULL) ||
            vips_bandjoin2(t[1], t[3], &t[4], NULL)) goto done;
        overlay = t[4];
    }
    if (replicate) {
        // As imgproxy: one tile with its gap shared on both sides, repeated
        // an odd number of times each way and centred on the base.
        int tile_w = vips_image_get_width(overlay) + gap_x, tile_h = vips_image_get_height(overlay) + gap_y;
        int base_w = vips_image_get_width(base), base_h = vips_image_get_height(base);
        int across = (base_w + tile_w - 1) / tile_w, down = (base_h + tile_h - 1) / tile_h;
        if (across % 2 == 0) across++;
        if (down % 2 == 0) down++;
        if (vips_embed(overlay, &t[5], gap_x / 2, gap_y / 2, tile_w, tile_h, "extend", VIPS_EXTEND_BLACK, NULL) ||
            vips_replicate(t[5], &t[6], across, down, NULL)) goto done;
        overlay = t[6];
        left = -((across * tile_w - base_w) / 2);
        top = -((down * tile_h - base_h) / 2);
    }
    VipsImage *composed = NULL;
    if (vips_composite2(base, overlay, &composed, VIPS_BLEND_MODE_OVER, "x", left, "y", top, NULL)) goto done;
    t[7] = composed;
    // Back to the base's bands and 8 bits.
    VipsImage *bands = NULL;
    int keep = vips_image_get_bands(base);
    if (vips_image_get_bands(composed) != keep) {
        if (vips_extract_band(composed, &bands, 0, "n", keep, NULL)) goto done;
    } else {
        bands = composed;
        g_object_ref(bands);
    }
    result = vips_cast_uchar(bands, out, NULL);
    g_object_unref(bands);
done:
    for (int i = 0; i < 8; i++) {
        if (t[i]) g_object_unref(t[i]);
    }
    return result;
}

static inline int darkroom_vips_smartcrop(VipsImage *in, VipsImage **out, int width, int height) {
    VipsImage *memory = vips_image_copy_memory(in);
    if (memory == NULL) {
        return -1;
    }
    int result = vips_smartcrop(memory, out, width, height, "interesting", VIPS_INTERESTING_ATTENTION, NULL);
    g_object_unref(memory);
    return result;
}

// MARK: - Animation

/// Each frame's delay in milliseconds, owned by the image; 0 when there
/// are none.
static inline int darkroom_vips_delays(VipsImage *image, int **delays) {
    int count = 0;
    if (!vips_image_get_typeof(image, "delay") || vips_image_get_array_int(image, "delay", delays, &count) != 0) {
        vips_error_clear();
        return 0;
    }
    return count;
}

/// Frames of one size stacked top to bottom into one animation: each
/// frame's "page-height", and the first `count` delays and the loop count
/// of `timing` (the loaded source). The GIF and WebP savers write such an
/// image as an animation.
static inline int darkroom_vips_join_frames(VipsImage **frames, int count, VipsImage *timing, VipsImage **out) {
    VipsImage *joined = NULL;
    if (vips_arrayjoin(frames, &joined, count, "across", 1, NULL) != 0) {
        return -1;
    }
    // A copy, so that setting fields does not touch an image others hold.
    int result = vips_copy(joined, out, NULL);
    g_object_unref(joined);
    if (result != 0) {
        return -1;
    }
    vips_image_set_int(*out, VIPS_META_PAGE_HEIGHT, vips_image_get_height(frames[0]));
    vips_image_set_int(*out, VIPS_META_N_PAGES, count);
    int *delays = NULL;
    int delay_count = 0;
    if (vips_image_get_typeof(timing, "delay") && vips_image_get_array_int(timing, "delay", &delays, &delay_count) == 0) {
        vips_image_set_array_int(*out, "delay", delays, delay_count < count ? delay_count : count);
    }
    int loop = 0;
    if (vips_image_get_typeof(timing, "loop") && vips_image_get_int(timing, "loop", &loop) == 0) {
        vips_image_set_int(*out, "loop", loop);
    }
    return 0;
}

// MARK: - Filters

static inline int darkroom_vips_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
    return vips_gaussblur(in, out, sigma, NULL);
}

static inline int darkroom_vips_sharpen(VipsImage *in, VipsImage **out, double sigma) {
    return vips_sharpen(in, out, "sigma", sigma, NULL);
}

// MARK: - Saving (metadata stripped)

static inline int darkroom_vips_jpegsave(VipsImage *in, void **buf, size_t *len, int quality, int progressive, int strip) {
    return vips_jpegsave_buffer(in, buf, len,
                                "Q", quality,
                                "interlace", progressive,
                                "strip", strip,
                                "optimize_coding", FALSE,
                                NULL);
}

static inline int darkroom_vips_pngsave(VipsImage *in, void **buf, size_t *len, int strip) {
    return vips_pngsave_buffer(in, buf, len, "strip", strip, "compression", 6, NULL);
}

/// PNG with libpng choosing each row's filter (none, sub, up, average,
/// Paeth), as most PNGs in the wild are written; libvips' default writes
/// none.
static inline int darkroom_vips_pngsave_filtered(VipsImage *in, void **buf, size_t *len, int strip) {
    return vips_pngsave_buffer(in, buf, len, "strip", strip, "compression", 6, "filter", VIPS_FOREIGN_PNG_FILTER_ALL, NULL);
}

static inline int darkroom_vips_webpsave(VipsImage *in, void **buf, size_t *len, int quality, int strip) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", strip, NULL);
}

static inline int darkroom_vips_webpsave_lossless(VipsImage *in, void **buf, size_t *len, int strip) {
    return vips_webpsave_buffer(in, buf, len, "lossless", TRUE, "strip", strip, NULL);
}

static inline int darkroom_vips_gifsave(VipsImage *in, void **buf, size_t *len, int strip) {
    return vips_gifsave_buffer(in, buf, len, "strip", strip, NULL);
}

/// imgproxy's default effort is 4 of 1...9: about a JPEG encode's time at
/// this size, where libjxl's default (7) takes many times longer.
static inline int darkroom_vips_jxlsave(VipsImage *in, void **buf, size_t *len, int quality, int effort, int strip) {
    return vips_jxlsave_buffer(in, buf, len, "Q", quality, "effort", effort, "strip", strip, NULL);
}

static inline int darkroom_vips_tiffsave(VipsImage *in, void **buf, size_t *len, int strip) {
    return vips_tiffsave_buffer(in, buf, len, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, "strip", strip, NULL);
}

// MARK: - Saving with an encoder's own settings (imgproxy's advanced
// compression settings). Each flag is passed only when set, so a default
// encode calls libvips exactly as the plain savers above do.

/// `trellis`, `overshoot`, `optimize_scans` and `quant_table` are mozjpeg's:
/// libvips applies them only when built with it.
static inline int darkroom_vips_jpegsave_tuned(VipsImage *in, void **buf, size_t *len, int quality, int progressive, int strip,
                                               int no_subsample, int trellis, int overshoot, int optimize_scans, int quant_table) {
    return vips_jpegsave_buffer(in, buf, len,
                                "Q", quality,
                                "interlace", progressive,
                                "strip", strip,
                                "optimize_coding", FALSE,
                                "subsample_mode", no_subsample ? VIPS_FOREIGN_SUBSAMPLE_OFF : VIPS_FOREIGN_SUBSAMPLE_AUTO,
                                "trellis_quant", trellis,
                                "overshoot_deringing", overshoot,
                                "optimize_scans", optimize_scans,
                                "quant_table", quant_table,
                                NULL);
}

/// `bitdepth` 0 writes full colour; 1, 2, 4 or 8 a palette of at most
/// that many bits (libimagequant), unfiltered as palette images compress best.
static inline int darkroom_vips_pngsave_tuned(VipsImage *in, void **buf, size_t *len, int strip, int interlace, int bitdepth) {
    if (bitdepth > 0) {
        return vips_pngsave_buffer(in, buf, len, "strip", strip, "compression", 6, "interlace", interlace,
                                   "palette", TRUE, "bitdepth", bitdepth, "filter", VIPS_FOREIGN_PNG_FILTER_NONE, NULL);
    }
    return vips_pngsave_buffer(in, buf, len, "strip", strip, "compression", 6, "interlace", interlace, NULL);
}

/// `compression`: 0 lossy, 1 near-lossless, 2 lossless; `preset` a
/// VipsForeignWebpPreset.
static inline int darkroom_vips_webpsave_tuned(VipsImage *in, void **buf, size_t *len, int quality, int strip,
                                               int effort, int preset, int compression, int smart_subsample) {
    return vips_webpsave_buffer(in, buf, len,
                                "Q", quality,
                                "strip", strip,
                                "effort", effort,
                                "preset", preset,
                                "lossless", compression == 2,
                                "near_lossless", compression == 1,
                                "smart_subsample", smart_subsample,
                                NULL);
}

/// AVIF (`av1`) or HEIC at `bitdepth` (8, or 10 or 12 for AVIF from
/// 16-bit pixels); `subsample` 0 auto (below quality 90), 1 always, 2 never.
static inline int darkroom_vips_heifsave_tuned(VipsImage *in, void **buf, size_t *len, int quality, int strip,
                                               int av1, int effort, int subsample, int bitdepth) {
    VipsForeignSubsample mode = subsample == 1 ? VIPS_FOREIGN_SUBSAMPLE_ON
                              : subsample == 2 ? VIPS_FOREIGN_SUBSAMPLE_OFF : VIPS_FOREIGN_SUBSAMPLE_AUTO;
    return vips_heifsave_buffer(in, buf, len,
                                "Q", quality,
                                "bitdepth", bitdepth,
                                "compression", av1 ? VIPS_FOREIGN_HEIF_COMPRESSION_AV1 : VIPS_FOREIGN_HEIF_COMPRESSION_HEVC,
                                "effort", effort,
                                "subsample_mode", mode,
                                "strip", strip,
                                NULL);
}

/// 8-bit grey, RGB or RGBA for the BMP and ICO writers: grey with alpha
/// becomes RGBA (neither format has grey with alpha).
static inline int darkroom_vips_bitmap_bands(VipsImage *in, VipsImage **out) {
    VipsImage *t = NULL;
    int result;
    if (vips_image_get_bands(in) == 2) {
        result = vips_colourspace(in, &t, VIPS_INTERPRETATION_sRGB, NULL);
    } else {
        result = vips_copy(in, &t, NULL);
    }
    if (result != 0) return -1;
    result = vips_cast_uchar(t, out, NULL);
    g_object_unref(t);
    return result;
}

/// Whether a metadata field is one a saver writes into the file (EXIF,
/// XMP, IPTC, the ICC profile, PNG comments, the orientation).
static inline int darkroom_is_file_metadata(const char *name) {
    return g_str_has_prefix(name, "exif-") || g_str_has_prefix(name, "xmp-") || g_str_has_prefix(name, "iptc-") ||
           g_str_has_prefix(name, "ipct-") || g_str_has_prefix(name, "png-comment-") ||
           strcmp(name, VIPS_META_ICC_NAME) == 0 || strcmp(name, VIPS_META_ORIENTATION) == 0;
}

/// The EXIF block libvips read, if any.
static inline const void *darkroom_vips_exif_blob(VipsImage *image, size_t *length) {
    const void *data = NULL;
    if (vips_image_get_typeof(image, VIPS_META_EXIF_NAME) == 0 ||
        vips_image_get_blob(image, VIPS_META_EXIF_NAME, &data, length) != 0) {
        vips_error_clear();
        return NULL;
    }
    return data;
}

/// A copy of `in` that keeps, of the metadata savers write, only: all of
/// it but the ICC profile (`keep_all`), the ICC profile (`keep_icc`), the
/// EXIF copyright (`copyright`: the source's value, as its bytes say, into
/// a fresh EXIF block; NULL keeps none). To be saved with strip off.
///
/// libvips holds EXIF fields as libexif renders them, which for the
/// copyright is "x (Photographer) - y (Editor)": written back as it is, it
/// nests a level on every pass. The field is set anew in the form libvips
/// reads back as the value alone ("value (title, format, n, n)").
static inline int darkroom_vips_keep_metadata(VipsImage *in, VipsImage **out, int keep_all, int keep_icc, const char *copyright) {
    int keep_copyright = copyright != NULL;
    if (vips_copy(in, out, NULL) != 0) {
        return -1;
    }
    gchar **fields = vips_image_get_fields(*out);
    for (int i = 0; fields[i] != NULL; i++) {
        const char *name = fields[i];
        if (!darkroom_is_file_metadata(name)) continue;
        int icc = strcmp(name, VIPS_META_ICC_NAME) == 0;
        int keep = icc ? keep_icc : (keep_all || (keep_copyright && strcmp(name, "exif-ifd0-Copyright") == 0));
        if (!keep) {
            vips_image_remove(*out, name);
        }
    }
    g_strfreev(fields);
    if (keep_copyright && !keep_all) {
        size_t length = strlen(copyright);
        char *field = g_strdup_printf("%s (Copyright, ASCII, %zu components, %zu bytes)", copyright, length + 1, length + 1);
        vips_image_set_string(*out, "exif-ifd0-Copyright", field);
        g_free(field);
    }
    return 0;
}

// MARK: - Cancellation

static void darkroom_vips_on_eval(VipsImage *image, VipsProgress *progress, void *percent) {
    (void)image;
    __atomic_store_n((int *)percent, progress->percent, __ATOMIC_RELAXED);
}

/// Records how far the evaluation of `image` has got, in percent of its
/// pixels, into `*percent` (which must outlive the image's evaluation) as
/// libvips reports it.
static inline void darkroom_vips_watch_progress(VipsImage *image, int *percent) {
    g_signal_connect(image, "eval", G_CALLBACK(darkroom_vips_on_eval), percent);
}

static inline int darkroom_vips_progress_read(const int *percent) {
    return __atomic_load_n(percent, __ATOMIC_RELAXED);
}

/// Lets another thread stop a running evaluation: with progress on, libvips
/// checks the kill flag as it computes each tile and fails the call.
static inline void darkroom_vips_enable_kill(VipsImage *image) {
    vips_image_set_progress(image, TRUE);
}

static inline void darkroom_vips_kill(VipsImage *image) {
    vips_image_set_kill(image, TRUE);
}

// MARK: - Raw pixels (the thumbnail path's, tests' and tools')

/// `image`, just made over raw 8-bit pixels, marked sRGB where it has
/// colour bands, into `out`; -1 when it could not be made.
static inline int darkroom_vips_raw_pixels_image(VipsImage *image, int bands, VipsImage **out) {
    if (image == NULL) {
        return -1;
    }
    if (bands >= 3) {
        image->Type = VIPS_INTERPRETATION_sRGB;
    }
    *out = image;
    return 0;
}

static inline int darkroom_vips_from_memory(const void *data, size_t size, int width, int height, int bands, VipsImage **out) {
    return darkroom_vips_raw_pixels_image(vips_image_new_from_memory_copy(data, size, width, height, bands, VIPS_FORMAT_UCHAR), bands, out);
}

/// An image over `data` as it is, without a copy: the caller keeps the
/// bytes alive, unchanged, until the image is released.
static inline int darkroom_vips_wrap_memory(const void *data, size_t size, int width, int height, int bands, VipsImage **out) {
    return darkroom_vips_raw_pixels_image(vips_image_new_from_memory(data, size, width, height, bands, VIPS_FORMAT_UCHAR), bands, out);
}

/// Tries libvips' own format detection and loader on these bytes (header
/// only). Returns 0 and the loader's class name when it would load them, or
/// -1 when it would not (unknown format, or its loader is blocked).
static inline int darkroom_vips_probe_load(const void *data, size_t size, const char **loader) {
    *loader = vips_foreign_find_load_buffer(data, size);
    VipsImage *image = vips_image_new_from_buffer(data, size, "", NULL);
    if (image == NULL) {
        return -1;
    }
    g_object_unref(image);
    return 0;
}

// MARK: - The C allocator (glibc)

/// At most `arenas` malloc arenas (glibc's default is eight per core).
static inline void darkroom_malloc_limit_arenas(int arenas) {
#ifdef M_ARENA_MAX
    mallopt(M_ARENA_MAX, arenas);
#endif
}

/// Blocks of at least `bytes` come from mmap and go back to the system when
/// freed. Setting it also stops glibc from raising the threshold after each
/// large free (up to 32 MiB), which left every source-sized buffer on the
/// heap, resident with its untouched tail.
static inline void darkroom_malloc_map_large(size_t bytes) {
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, (int)bytes);
#endif
}

/// Returns free memory to the system.
static inline void darkroom_malloc_trim(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

#endif
