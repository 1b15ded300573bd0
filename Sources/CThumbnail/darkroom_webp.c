#include "darkroom_webp.h"

#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>

#include "darkroom_exif.h"
#include "darkroom_resample.h"

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
    // The extended format's chunks: a profile to honour, EXIF to read.
    if (memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        size_t end = (size_t)le32(data + 4) + 8;
        if (end > length) end = length;
        size_t position = 12;
        int seen_exif = 0;
        while (end - position >= 8 && position < end) {
            const uint8_t *type = data + position;
            size_t size = le32(data + position + 4);
            if (size > end - position - 8) break;
            const uint8_t *body = type + 8;
            if (memcmp(type, "ICCP", 4) == 0 || memcmp(type, "ALPH", 4) == 0 || memcmp(type, "ANIM", 4) == 0) {
                supported = 0;
            } else if (memcmp(type, "EXIF", 4) == 0 && !seen_exif) {
                // Some writers keep JPEG's "Exif\0\0" before the TIFF header.
                if (size >= 6 && memcmp(body, "Exif\0\0", 6) == 0) {
                    body += 6;
                    size -= 6;
                }
                header->orientation = dr_exif_orientation(body, size);
                header->copyright = dr_exif_has_tag(body, size, DR_EXIF_COPYRIGHT);
                seen_exif = 1;
            }
            position += 8 + size + (size & 1);
        }
    }
    header->supported = supported;
    return DR_OK;
}

enum { SLACK = 64 };

int dr_webp_decode_resampled(const uint8_t *data, size_t length, int shrink, int out_width, int out_height, uint8_t **pixels) {
    dr_image_header header;
    if (dr_webp_read_header(data, length, &header) != DR_OK || !header.supported || shrink < 1) return DR_DECLINED;
    int width = header.width / shrink, height = header.height / shrink;
    if (width < 1 || height < 1 || out_width < 1 || out_height < 1 || out_width > width || out_height > height) return DR_DECLINED;

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
    uint8_t *decoded = malloc(size + SLACK);
    dr_resampler *resampler = dr_resampler_new(width, height, 3, out_width, out_height);
    int status = DR_DECLINED;
    if (!decoded || !resampler) goto done;
    memset(decoded + size, 0, SLACK);
    config.output.colorspace = MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = decoded;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = size;
    if (WebPDecode(data, length, &config) != VP8_STATUS_OK) goto done;
    for (int y = 0; y < height; y++) dr_resampler_push_row(resampler, decoded + (size_t)y * stride);
    *pixels = dr_resampler_finish(resampler);
    status = *pixels ? DR_OK : DR_DECLINED;

done:
    WebPFreeDecBuffer(&config.output);
    dr_resampler_free(resampler);
    free(decoded);
    return status;
}
