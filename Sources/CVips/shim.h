// Fixed-arity wrappers for libvips' variadic functions and macros, which
// Swift cannot call directly, and nothing else: Darkroom's own steps over
// libvips are declared in the other headers of this module and defined in
// the C target CVipsOperations. Every function returns 0 on success and -1
// on failure, with the reason in vips_error_buffer().
#ifndef DARKROOM_CVIPS_SHIM_H
#define DARKROOM_CVIPS_SHIM_H

#include <vips/vips.h>
#include <malloc.h>

// MARK: - Runtime

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
static inline int darkroom_vips_pngsave_stored(VipsImage *in, void **buf, size_t *len, int strip) {
    return vips_pngsave_buffer(in, buf, len, "compression", 0, "filter", VIPS_FOREIGN_PNG_FILTER_NONE, "strip", strip, NULL);
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

/// The pixels, row by row, into a buffer to be freed with g_free.
static inline void *darkroom_vips_pixels(VipsImage *image, size_t *size) {
    return vips_image_write_to_memory(image, size);
}
static inline int darkroom_vips_interpretation(VipsImage *image) { return (int)vips_image_get_interpretation(image); }
/// Bytes a band of a pixel takes (1 for 8-bit, 2 for 16-bit...).
static inline int darkroom_vips_bytes_per_sample(VipsImage *image) { return (int)vips_format_sizeof(vips_image_get_format(image)); }
static inline int darkroom_vips_band_format(VipsImage *image) { return (int)vips_image_get_format(image); }
static inline int darkroom_vips_has_icc(VipsImage *image) {
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

// MARK: - Pixels in memory, grey

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

/// A two-band image of each pixel's x and y.
static inline int darkroom_vips_xyz(VipsImage **out, int width, int height) {
    return vips_xyz(out, width, height, NULL);
}

/// To 8 bits, values clipped to 0...255.
static inline int darkroom_vips_cast_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast_uchar(in, out, NULL);
}

// MARK: - Geometry

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

static inline int darkroom_vips_resize(VipsImage *in, VipsImage **out, double hscale, double vscale, int kernel) {
    return vips_resize(in, out, hscale, "vscale", vscale, "kernel", (VipsKernel)kernel, NULL);
}

static inline int darkroom_vips_crop(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

// MARK: - Filters

static inline int darkroom_vips_gaussblur(VipsImage *in, VipsImage **out, double sigma) {
    return vips_gaussblur(in, out, sigma, NULL);
}

static inline int darkroom_vips_sharpen(VipsImage *in, VipsImage **out, double sigma) {
    return vips_sharpen(in, out, "sigma", sigma, NULL);
}

// MARK: - Saving (metadata stripped)

// JPEG answers get Huffman tables made for their own coefficients
// ("optimize_coding"), as imgproxy and thumbor write them: a second pass
// over the coefficients for answers a few percent smaller (3.6% at 512 px
// on the corpus photos).

static inline int darkroom_vips_jpegsave(VipsImage *in, void **buf, size_t *len, int quality, int progressive, int strip) {
    return vips_jpegsave_buffer(in, buf, len,
                                "Q", quality,
                                "interlace", progressive,
                                "strip", strip,
                                "optimize_coding", TRUE,
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
                                "optimize_coding", TRUE,
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

// MARK: - Cancellation

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

// MARK: - The C allocator (glibc)

/// At most `arenas` malloc arenas (glibc's default is eight per core).
static inline void darkroom_malloc_limit_arenas(int arenas) {
#ifdef M_ARENA_MAX
    mallopt(M_ARENA_MAX, arenas);
#endif
}

/// Blocks of at least `bytes` come from mmap and go back to the system when
/// freed. Setting it also stops glibc from raising the threshold after each
/// large free, so the threshold stays where the process put it.
static inline void darkroom_malloc_map_large(size_t bytes) {
#ifdef M_MMAP_THRESHOLD
    mallopt(M_MMAP_THRESHOLD, (int)bytes);
#endif
}

/// Free memory at the top of a heap is returned to the system once it is
/// more than `bytes` (glibc's default is 128 KiB).
static inline void darkroom_malloc_keep_free_top(size_t bytes) {
#ifdef M_TRIM_THRESHOLD
    mallopt(M_TRIM_THRESHOLD, (int)bytes);
#endif
}

/// Returns free memory to the system.
static inline void darkroom_malloc_trim(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

#endif
