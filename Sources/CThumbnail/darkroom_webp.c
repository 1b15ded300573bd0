#include "darkroom_webp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>

#include "darkroom_exif.h"
#include "darkroom_icc.h"

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int dr_webp_read_header(const uint8_t *data, size_t length, dr_image_header *header) {
    memset(header, 0, sizeof(*header));
    header->orientation = 1;
    WebPBitstreamFeatures features;
    if (length < 20 || WebPGetFeatures(data, length, &features) != VP8_STATUS_OK) return DR_DECLINED;
    if (features.width < 1 || features.height < 1) return DR_DECLINED;
    header->width = features.width;
    header->height = features.height;
    int supported = !features.has_alpha && !features.has_animation;
    // The extended format's chunks: a profile to judge, EXIF to read.
    if (memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        size_t end = (size_t)le32(data + 4) + 8;
        if (end > length) end = length;
        size_t position = 12;
        int seen_exif = 0, seen_profile = 0;
        while (end - position >= 8 && position < end) {
            const uint8_t *type = data + position;
            size_t size = le32(data + position + 4);
            if (size > end - position - 8) break;
            const uint8_t *body = type + 8;
            if (memcmp(type, "ICCP", 4) == 0 && !seen_profile) {
                seen_profile = 1;
                if (!dr_icc_is_srgb(body, size)) {
                    header->foreign_profile = 1;
                    supported = 0;
                }
            } else if (memcmp(type, "ALPH", 4) == 0 || memcmp(type, "ANIM", 4) == 0) {
                supported = 0;
            } else if (memcmp(type, "EXIF", 4) == 0 && !seen_exif) {
                // Some writers keep JPEG's "Exif\0\0" before the TIFF header.
                size_t tiff_length;
                const uint8_t *tiff = dr_exif_tiff(body, size, 1, &tiff_length);
                if (tiff) {
                    header->orientation = dr_exif_orientation(tiff, tiff_length);
                    header->copyright = dr_exif_has_tag(tiff, tiff_length, DR_EXIF_COPYRIGHT);
                }
                seen_exif = 1;
            }
            position += 8 + size + (size & 1);
        }
    }
    header->supported = supported;
    return DR_OK;
}

void dr_webp_scaled_size(int width, int height, int shrink, int *scaled_width, int *scaled_height) {
    *scaled_width = *scaled_height = 0;
    if (width < 1 || height < 1 || shrink < 1) return;
    // As libvips' loader rounds a scale of 1 / shrink.
    *scaled_width = (int)rint(width * (1.0 / shrink));
    *scaled_height = (int)rint(height * (1.0 / shrink));
}

enum { SLACK = 64, SLICE = 64 << 10 };

int dr_webp_decode_resampled(const uint8_t *data, size_t length, int shrink, const dr_resample_spec *spec, uint8_t **pixels,
                             dr_cancelled cancelled, void *context) {
    *pixels = NULL;
    dr_image_header header;
    if (dr_webp_read_header(data, length, &header) != DR_OK || !header.supported || shrink < 1) return DR_DECLINED;
    int width, height;
    dr_webp_scaled_size(header.width, header.height, shrink, &width, &height);
    if (width < 1 || height < 1 || spec->in_width != width || spec->in_height != height) return DR_DECLINED;

    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return DR_DECLINED;
    if (shrink > 1) {
        config.options.use_scaling = 1;
        config.options.scaled_width = width;
        config.options.scaled_height = height;
    }
    // Into a buffer of ours, with room past the last row that the
    // resampler's vector code may read.
    size_t stride = (size_t)width * 3, size = stride * (size_t)height;
    dr_resample_spec rgb = *spec;
    rgb.in_bands = 3;
    uint8_t *decoded = malloc(size + SLACK);
    dr_resampler *resampler = dr_resampler_new(&rgb);
    WebPIDecoder *decoder = NULL;
    int status = DR_DECLINED;
    if (!decoded || !resampler) goto done;
    memset(decoded + size, 0, SLACK);
    config.output.colorspace = MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = decoded;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = size;
    decoder = WebPIDecode(NULL, 0, &config);
    if (!decoder) goto done;
    // A slice at a time, looking at the kill switch between slices.
    VP8StatusCode result = VP8_STATUS_SUSPENDED;
    for (size_t offset = 0; offset < length && result == VP8_STATUS_SUSPENDED; offset += SLICE) {
        if (cancelled && cancelled(context)) {
            status = DR_CANCELLED;
            goto done;
        }
        size_t slice = length - offset < SLICE ? length - offset : SLICE;
        result = WebPIAppend(decoder, data + offset, slice);
    }
    if (result != VP8_STATUS_OK) goto done;
    for (int y = 0; y < height; y++) dr_resampler_push_row(resampler, decoded + (size_t)y * stride);
    *pixels = dr_resampler_finish(resampler);
    status = *pixels ? DR_OK : DR_DECLINED;

done:
    if (decoder) WebPIDelete(decoder);
    WebPFreeDecBuffer(&config.output);
    dr_resampler_free(resampler);
    free(decoded);
    return status;
}
