#include "darkroom_avif.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <avif/avif.h>

#include "darkroom_exif.h"
#include "darkroom_icc.h"

/// A decoder over `data` with the container parsed: one thread (the
/// caller's queues do the parallel work), libavif's own size limits.
static avifDecoder *parsed(const uint8_t *data, size_t length) {
    avifDecoder *decoder = avifDecoderCreate();
    if (!decoder) return NULL;
    decoder->maxThreads = 1;
    if (avifDecoderSetIOMemory(decoder, data, length) != AVIF_RESULT_OK || avifDecoderParse(decoder) != AVIF_RESULT_OK) {
        avifDecoderDestroy(decoder);
        return NULL;
    }
    return decoder;
}

/// libheif's Kr and Kb for a matrix (its nclx.cc, get_Kr_Kb), in single
/// precision as there; 0 and 0 for the matrices it has no values for.
static void kr_kb(int matrix, float *kr, float *kb) {
    *kr = *kb = 0;
    switch (matrix) {
    case 1: *kr = 0.2126f; *kb = 0.0722f; break;
    case 4: *kr = 0.30f; *kb = 0.11f; break;
    case 5: case 6: *kr = 0.299f; *kb = 0.114f; break;
    case 7: *kr = 0.212f; *kb = 0.087f; break;
    case 9: case 10: *kr = 0.2627f; *kb = 0.0593f; break;
    default: break;
    }
}

typedef struct { float r_cr, g_cb, g_cr, b_cb; } coefficients;

/// libheif's YCbCr_to_RGB_coefficients for a matrix, in single precision as
/// there; BT.601's where it has no values for the matrix.
static coefficients coefficients_for(int matrix) {
    float kr, kb;
    coefficients c = { 1.402f, -0.344136f, -0.714136f, 1.772f };
    kr_kb(matrix, &kr, &kb);
    if (kr != 0 || kb != 0) {
        c.r_cr = 2 * (-kr + 1);
        c.g_cb = 2 * kb * (-kb + 1) / (kb + kr - 1);
        c.g_cr = 2 * kr * (-kr + 1) / (kb + kr - 1);
        c.b_cb = 2 * (-kb + 1);
    }
    return c;
}

/// Whether libheif converts this image with its general formula (8-bit
/// colour, any chroma subsampling, full or limited range, a matrix it
/// reads from a table), and nothing about it needs libvips.
static int takes(const avifDecoder *decoder) {
    const avifImage *image = decoder->image;
    int matrix = image->matrixCoefficients;
    if (decoder->imageCount != 1 || decoder->alphaPresent || decoder->progressiveState != AVIF_PROGRESSIVE_STATE_UNAVAILABLE) return 0;
    if (image->depth != 8) return 0;
    if (image->yuvFormat != AVIF_PIXEL_FORMAT_YUV420 && image->yuvFormat != AVIF_PIXEL_FORMAT_YUV422
        && image->yuvFormat != AVIF_PIXEL_FORMAT_YUV444) return 0;
    // Identity and YCgCo take their own branches in libheif; the
    // chromaticity-derived matrices need the primaries' arithmetic.
    if (matrix == 0 || matrix == 8 || matrix == 12 || matrix == 13) return 0;
    // Cropped, turned or mirrored: libheif applies them; not here.
    if (image->transformFlags & (AVIF_TRANSFORM_CLAP | AVIF_TRANSFORM_IROT | AVIF_TRANSFORM_IMIR)) return 0;
    return 1;
}

/// Whether the image carries an ICC profile other than sRGB's.
static int has_foreign_profile(const avifImage *image) {
    return image->icc.size > 0 && !dr_icc_is_srgb(image->icc.data, image->icc.size);
}

/// Whether this path decodes the image: libheif's general formula takes it
/// and its colours need no profile converted.
static int eligible(const avifDecoder *decoder) {
    return takes(decoder) && !has_foreign_profile(decoder->image);
}

int dr_avif_read_header(const uint8_t *data, size_t length, dr_image_header *header) {
    memset(header, 0, sizeof(*header));
    header->orientation = 1;
    avifDecoder *decoder = parsed(data, length);
    if (!decoder) return DR_DECLINED;
    const avifImage *image = decoder->image;
    if (image->width < 1 || image->height < 1 || image->width > INT32_MAX || image->height > INT32_MAX) {
        avifDecoderDestroy(decoder);
        return DR_DECLINED;
    }
    header->width = (int)image->width;
    header->height = (int)image->height;
    header->foreign_profile = has_foreign_profile(image);
    header->supported = eligible(decoder);
    // The EXIF's copyright, which answers keep. Its orientation is not
    // read: libvips' HEIF loader drops it (libheif turns images by their
    // boxes), so both engines take an AVIF as it is stored.
    size_t tiff_length;
    const uint8_t *tiff = dr_exif_heif_tiff(image->exif.data, image->exif.size, &tiff_length);
    if (tiff) header->copyright = dr_exif_has_tag(tiff, tiff_length, DR_EXIF_COPYRIGHT);
    avifDecoderDestroy(decoder);
    return DR_OK;
}

enum { ROWS_BETWEEN_LOOKS = 64 };

/// libheif's clip_f_u16 at 8 bits: rounded half up by truncation.
static uint8_t clip(float value) {
    long x = (long)(value + 0.5f);
    return x < 0 ? 0 : x > 255 ? 255 : (uint8_t)x;
}

int dr_avif_decode_resampled(const uint8_t *data, size_t length, const dr_resample_spec *spec, uint8_t **pixels,
                             dr_cancelled cancelled, void *context) {
    *pixels = NULL;
    avifDecoder *decoder = parsed(data, length);
    if (!decoder) return DR_DECLINED;
    int status = DR_DECLINED;
    dr_resampler *resampler = NULL;
    const avifImage *image = decoder->image;
    int width = (int)image->width, height = (int)image->height;
    if (!eligible(decoder)) goto done;
    if (width != spec->in_width || height != spec->in_height) goto done;
    if (cancelled && cancelled(context)) {
        status = DR_CANCELLED;
        goto done;
    }
    if (avifDecoderNextImage(decoder) != AVIF_RESULT_OK) goto done;
    // The decoded frame may say otherwise than the container did.
    if (!takes(decoder) || (int)image->width != width || (int)image->height != height) goto done;

    dr_resample_spec rgb = *spec;
    rgb.in_bands = 3;
    resampler = dr_resampler_new(&rgb);
    if (!resampler) goto done;
    coefficients c = coefficients_for(image->matrixCoefficients);
    int full = image->yuvRange == AVIF_RANGE_FULL;
    int shift_x = image->yuvFormat == AVIF_PIXEL_FORMAT_YUV444 ? 0 : 1;
    int shift_y = image->yuvFormat == AVIF_PIXEL_FORMAT_YUV420 ? 1 : 0;
    for (int y = 0; y < height;) {
        if (cancelled && cancelled(context)) {
            status = DR_CANCELLED;
            goto done;
        }
        uint8_t *rows[ROWS_BETWEEN_LOOKS];
        int lent = dr_resampler_lend(resampler, rows, ROWS_BETWEEN_LOOKS);
        if (lent <= 0) goto done;
        for (int i = 0; i < lent && y < height; i++, y++) {
            const uint8_t *luma = image->yuvPlanes[AVIF_CHAN_Y] + (size_t)y * image->yuvRowBytes[AVIF_CHAN_Y];
            const uint8_t *u = image->yuvPlanes[AVIF_CHAN_U] + (size_t)(y >> shift_y) * image->yuvRowBytes[AVIF_CHAN_U];
            const uint8_t *v = image->yuvPlanes[AVIF_CHAN_V] + (size_t)(y >> shift_y) * image->yuvRowBytes[AVIF_CHAN_V];
            uint8_t *out = rows[i];
            // libheif's Op_YCbCr_to_RGB, which libvips' loader has run:
            // each chroma sample for the pixels it covers, in single
            // precision, in the same order of operations.
            for (int x = 0; x < width; x++, out += 3) {
                float yv = (float)luma[x], cb = (float)(u[x >> shift_x] - 128), cr = (float)(v[x >> shift_x] - 128);
                if (!full) {
                    yv = (yv - 16.0f) * 1.1689f;
                    cb = cb * 1.1429f;
                    cr = cr * 1.1429f;
                }
                out[0] = clip(yv + c.r_cr * cr);
                out[1] = clip(yv + c.g_cb * cb + c.g_cr * cr);
                out[2] = clip(yv + c.b_cb * cb);
            }
        }
        dr_resampler_push(resampler, lent);
    }
    *pixels = dr_resampler_finish(resampler);
    status = *pixels ? DR_OK : DR_DECLINED;

done:
    dr_resampler_free(resampler);
    avifDecoderDestroy(decoder);
    return status;
}
