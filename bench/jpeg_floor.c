/*
 * The floors for a cold answer from a JPEG source: the least CPU any
 * thumbnailer built on libjpeg-turbo spends on it, on one core.
 *
 *     jpeg_floor CORE SIZE QUALITY ROUNDS [--webp Q] [--avif Q SPEED] [--planes] FILE...
 *
 * decode_at_scale: exactly the fast path's decode of each file: the
 *   header, libjpeg's DCT scaling at the shrink-on-load factor (the largest
 *   of 8, 4 and 2 that keeps both sides at least SIZE), RGB rows read into
 *   one reused buffer. No resampling, no encode.
 * decode_encode: that decode, then the SIZE-px answer written at QUALITY
 *   with 4:2:0 chroma, once with libjpeg's standard Huffman tables and once
 *   with tables made for the image (optimize_coding). The answer's pixels
 *   are made once beforehand (a box filter of the scaled decode): the
 *   resampling between the two is the thumbnailer's own work, not the
 *   floor's.
 *
 * decode_encode_webp, decode_encode_avif: that decode, then the answer
 *   written as WebP by libwebp (quality Q, method 4: libvips' effort 4) or
 *   as AVIF by libheif with libaom (quality Q, speed SPEED, 4:2:0, 8 bits),
 *   the encoders and settings Darkroom's answers use.
 *
 * --planes: what colour conversion costs inside that floor, the limit of a
 *   pipeline that would carry YCbCr planes from the decoder to the encoder:
 *   decode_at_scale_planes (the same decode into Y, Cb and Cr planes,
 *   jpeg_read_raw_data), write_answer (the optimised write alone, from RGB
 *   rows) and write_answer_planes (the same answer from 4:2:0 planes made
 *   from it beforehand, jpeg_write_raw_data: no conversion, no chroma
 *   downsampling).
 *
 * Each file is read into memory first; then ROUNDS passes over all of
 * them, and for each measure the median over the rounds of the CPU time
 * per image (CLOCK_PROCESS_CPUTIME_ID: an encoder's own threads count),
 * printed as milliseconds, one line a measure: "decode_at_scale MS",
 * "decode_encode MS", "decode_encode_optimised MS", and with the options
 * "decode_encode_webp MS", "decode_encode_avif MS".
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jpeglib.h>
#include <libheif/heif.h>
#include <webp/encode.h>

struct failure {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
};

static void fail(j_common_ptr info) {
    longjmp(((struct failure *)info->err)->jump, 1);
}

struct photo {
    unsigned char *data;
    unsigned long size;
    int denom;
    /* The answer's pixels, RGB, made once. */
    unsigned char *answer;
    int answer_width, answer_height;
    /* With --planes, the answer as 4:2:0 planes, each side padded to whole
     * MCUs (16 luma pixels) by copies of the edge. */
    unsigned char *planes[3];
    int plane_stride[3], plane_rows[3];
};

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Decodes `p` at its scale; with `keep`, returns the rows (RGB). */
static unsigned char *decode(struct photo *p, int keep, int *width, int *height) {
    struct jpeg_decompress_struct cinfo;
    struct failure failure;
    unsigned char *row = NULL, *pixels = NULL;
    cinfo.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = fail;
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(row);
        free(pixels);
        return NULL;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, p->data, p->size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned)p->denom;
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * 3;
    if (keep) pixels = malloc(stride * cinfo.output_height);
    else row = malloc(stride);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW target = keep ? pixels + stride * cinfo.output_scanline : row;
        jpeg_read_scanlines(&cinfo, &target, 1);
    }
    *width = (int)cinfo.output_width;
    *height = (int)cinfo.output_height;
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);
    return keep ? pixels : (unsigned char *)1;
}

/* Decodes `p` at its scale into YCbCr planes, an iMCU row at a time. */
static int decode_planes(struct photo *p) {
    struct jpeg_decompress_struct cinfo;
    struct failure failure;
    unsigned char *rows = NULL;
    cinfo.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = fail;
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(rows);
        return 0;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, p->data, p->size);
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.num_components != 3 || cinfo.jpeg_color_space != JCS_YCbCr) {
        fprintf(stderr, "--planes takes 3-component YCbCr JPEGs only\n");
        jpeg_destroy_decompress(&cinfo);
        return 0;
    }
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned)p->denom;
    cinfo.raw_data_out = TRUE;
    jpeg_start_decompress(&cinfo);
    /* Each component's rows of one iMCU row, at most 4 x 8 of them. */
    JSAMPROW pointers[3][32];
    JSAMPARRAY components[3];
    size_t widest = 0;
    for (int c = 0; c < 3; c++) {
        size_t width = (size_t)cinfo.comp_info[c].width_in_blocks * (size_t)cinfo.comp_info[c].DCT_scaled_size;
        if (width > widest) widest = width;
    }
    rows = malloc(widest * 3 * 32);
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 32; i++) pointers[c][i] = rows + (size_t)(c * 32 + i) * widest;
        components[c] = pointers[c];
    }
    JDIMENSION lines = (JDIMENSION)(cinfo.max_v_samp_factor * cinfo.min_DCT_scaled_size);
    while (cinfo.output_scanline < cinfo.output_height) jpeg_read_raw_data(&cinfo, components, lines);
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(rows);
    return 1;
}

/* The answer's 4:2:0 planes (JFIF's arithmetic, chroma the mean of 2 x 2),
 * made once before anything is timed. */
static void make_planes(struct photo *p) {
    int w = p->answer_width, h = p->answer_height;
    int stride = (w + 15) / 16 * 16, rows = (h + 15) / 16 * 16;
    int sizes[3][2] = {{stride, rows}, {stride / 2, rows / 2}, {stride / 2, rows / 2}};
    for (int c = 0; c < 3; c++) {
        p->plane_stride[c] = sizes[c][0];
        p->plane_rows[c] = sizes[c][1];
        p->planes[c] = malloc((size_t)sizes[c][0] * (size_t)sizes[c][1]);
    }
    for (int y = 0; y < rows; y++) {
        for (int x = 0; x < stride; x++) {
            const unsigned char *rgb = p->answer + ((size_t)(y < h ? y : h - 1) * w + (x < w ? x : w - 1)) * 3;
            p->planes[0][(size_t)y * stride + x] = (unsigned char)(0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] + 0.5);
        }
    }
    for (int y = 0; y < rows / 2; y++) {
        for (int x = 0; x < stride / 2; x++) {
            double cb = 0, cr = 0;
            for (int i = 0; i < 4; i++) {
                int sy = 2 * y + i / 2, sx = 2 * x + i % 2;
                const unsigned char *rgb = p->answer + ((size_t)(sy < h ? sy : h - 1) * w + (sx < w ? sx : w - 1)) * 3;
                cb += 128 - 0.168736 * rgb[0] - 0.331264 * rgb[1] + 0.5 * rgb[2];
                cr += 128 + 0.5 * rgb[0] - 0.418688 * rgb[1] - 0.081312 * rgb[2];
            }
            p->planes[1][(size_t)y * (stride / 2) + x] = (unsigned char)(cb / 4 + 0.5);
            p->planes[2][(size_t)y * (stride / 2) + x] = (unsigned char)(cr / 4 + 0.5);
        }
    }
}

/* The answer written from its planes, tables made for it; its size. */
static unsigned long encode_planes(struct photo *p, int quality) {
    struct jpeg_compress_struct cinfo;
    struct failure failure;
    unsigned char *out = NULL;
    unsigned long size = 0;
    cinfo.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = fail;
    if (setjmp(failure.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(out);
        return 0;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &out, &size);
    cinfo.image_width = (JDIMENSION)p->answer_width;
    cinfo.image_height = (JDIMENSION)p->answer_height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    cinfo.raw_data_in = TRUE;
    jpeg_start_compress(&cinfo, TRUE);
    /* 16 luma rows and 8 of each chroma plane at a time (4:2:0). */
    JSAMPROW luma[16], blue[8], red[8];
    JSAMPARRAY planes[3] = {luma, blue, red};
    while (cinfo.next_scanline < cinfo.image_height) {
        int top = (int)cinfo.next_scanline;
        for (int i = 0; i < 16; i++) luma[i] = p->planes[0] + (size_t)(top + i) * p->plane_stride[0];
        for (int i = 0; i < 8; i++) {
            blue[i] = p->planes[1] + (size_t)(top / 2 + i) * p->plane_stride[1];
            red[i] = p->planes[2] + (size_t)(top / 2 + i) * p->plane_stride[2];
        }
        jpeg_write_raw_data(&cinfo, planes, 16);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(out);
    return size;
}

static unsigned long encode(struct photo *p, int quality, int optimise) {
    struct jpeg_compress_struct cinfo;
    struct failure failure;
    unsigned char *out = NULL;
    unsigned long size = 0;
    cinfo.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = fail;
    if (setjmp(failure.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(out);
        return 0;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &out, &size);
    cinfo.image_width = (JDIMENSION)p->answer_width;
    cinfo.image_height = (JDIMENSION)p->answer_height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = optimise ? TRUE : FALSE;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = p->answer + (size_t)cinfo.next_scanline * p->answer_width * 3;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(out);
    return size;
}

static int webp_write(const uint8_t *data, size_t size, const WebPPicture *picture) {
    (void)data;
    *(size_t *)picture->custom_ptr += size;
    return 1;
}

/* The answer as WebP; its size in bytes, 0 on failure. */
static size_t encode_webp(struct photo *p, int quality) {
    WebPConfig config;
    WebPPicture picture;
    size_t size = 0;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) return 0;
    config.quality = (float)quality;
    config.method = 4;
    picture.width = p->answer_width;
    picture.height = p->answer_height;
    picture.writer = webp_write;
    picture.custom_ptr = &size;
    int ok = WebPPictureImportRGB(&picture, p->answer, p->answer_width * 3) && WebPEncode(&config, &picture);
    WebPPictureFree(&picture);
    return ok ? size : 0;
}

static struct heif_error heif_count(struct heif_context *context, const void *data, size_t size, void *counter) {
    (void)context;
    (void)data;
    *(size_t *)counter += size;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    return ok;
}

/* The answer as AVIF; its size in bytes, 0 on failure. */
static size_t encode_avif(struct photo *p, int quality, int speed) {
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    size_t size = 0;
    int ok = !heif_context_get_encoder_for_format(context, heif_compression_AV1, &encoder).code
        && !heif_encoder_set_lossy_quality(encoder, quality).code
        && !heif_encoder_set_parameter_integer(encoder, "speed", speed).code
        && !heif_encoder_set_parameter_string(encoder, "chroma", "420").code
        && !heif_image_create(p->answer_width, p->answer_height, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image).code
        && !heif_image_add_plane(image, heif_channel_interleaved, p->answer_width, p->answer_height, 8).code;
    if (ok) {
        int stride;
        uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
        for (int y = 0; y < p->answer_height; y++) {
            memcpy(plane + (size_t)y * stride, p->answer + (size_t)y * p->answer_width * 3, (size_t)p->answer_width * 3);
        }
        struct heif_writer writer = {1, heif_count};
        ok = !heif_context_encode_image(context, image, encoder, NULL, NULL).code
            && !heif_context_write(context, &writer, &size).code;
    }
    if (image) heif_image_release(image);
    if (encoder) heif_encoder_release(encoder);
    heif_context_free(context);
    return ok ? size : 0;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof(double), compare);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: jpeg_floor CORE SIZE QUALITY ROUNDS [--webp Q] [--avif Q SPEED] [--planes] FILE...\n");
        return 2;
    }
    int core = atoi(argv[1]), size = atoi(argv[2]), quality = atoi(argv[3]), rounds = atoi(argv[4]);
    int first = 5, webp_quality = 0, avif_quality = 0, avif_speed = 0, planes = 0;
    for (;;) {
        if (first + 1 < argc && strcmp(argv[first], "--webp") == 0) {
            webp_quality = atoi(argv[first + 1]);
            first += 2;
        } else if (first + 2 < argc && strcmp(argv[first], "--avif") == 0) {
            avif_quality = atoi(argv[first + 1]);
            avif_speed = atoi(argv[first + 2]);
            first += 3;
        } else if (first < argc && strcmp(argv[first], "--planes") == 0) {
            planes = 1;
            first += 1;
        } else {
            break;
        }
    }
    int count = argc - first;
    if (size < 1 || quality < 1 || quality > 100 || rounds < 1 || count < 1 || webp_quality < 0 || webp_quality > 100
        || avif_quality < 0 || avif_quality > 100 || avif_speed < 0 || avif_speed > 9) return 2;
    heif_init(NULL);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        perror("sched_setaffinity");
        return 1;
    }
    struct photo *photos = calloc((size_t)count, sizeof(struct photo));
    for (int i = 0; i < count; i++) {
        FILE *f = fopen(argv[first + i], "rb");
        if (!f) {
            perror(argv[first + i]);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        photos[i].size = (unsigned long)ftell(f);
        fseek(f, 0, SEEK_SET);
        photos[i].data = malloc(photos[i].size);
        if (fread(photos[i].data, 1, photos[i].size, f) != photos[i].size) return 1;
        fclose(f);
        /* The header's size, for the shrink-on-load factor. */
        struct jpeg_decompress_struct cinfo;
        struct failure failure;
        cinfo.err = jpeg_std_error(&failure.manager);
        failure.manager.error_exit = fail;
        if (setjmp(failure.jump)) return 1;
        jpeg_create_decompress(&cinfo);
        jpeg_mem_src(&cinfo, photos[i].data, photos[i].size);
        jpeg_read_header(&cinfo, TRUE);
        int w = (int)cinfo.image_width, h = (int)cinfo.image_height;
        jpeg_destroy_decompress(&cinfo);
        double scale = (double)size / (w > h ? w : h);
        photos[i].denom = 1;
        if (scale < 1) {
            int factors[] = {8, 4, 2};
            for (int k = 0; k < 3; k++) {
                if (factors[k] <= 1 / scale) {
                    photos[i].denom = factors[k];
                    break;
                }
            }
        }
        /* The answer's pixels: the scaled decode, box-filtered to SIZE. */
        int dw, dh;
        unsigned char *decoded = decode(&photos[i], 1, &dw, &dh);
        if (!decoded) return 1;
        double fit = (double)size / (dw > dh ? dw : dh);
        if (fit > 1) fit = 1;
        int aw = (int)(dw * fit + 0.5), ah = (int)(dh * fit + 0.5);
        photos[i].answer = malloc((size_t)aw * ah * 3);
        photos[i].answer_width = aw;
        photos[i].answer_height = ah;
        for (int y = 0; y < ah; y++) {
            int sy = (int)(y / fit);
            for (int x = 0; x < aw; x++) {
                int sx = (int)(x / fit);
                memcpy(photos[i].answer + ((size_t)y * aw + x) * 3, decoded + ((size_t)(sy < dh ? sy : dh - 1) * dw + (sx < dw ? sx : dw - 1)) * 3, 3);
            }
        }
        free(decoded);
        if (planes) make_planes(&photos[i]);
    }
    double *at_scale = calloc((size_t)rounds, sizeof(double));
    double *plain = calloc((size_t)rounds, sizeof(double));
    double *optimised = calloc((size_t)rounds, sizeof(double));
    double *webp = calloc((size_t)rounds, sizeof(double));
    double *avif = calloc((size_t)rounds, sizeof(double));
    double *at_scale_planes = calloc((size_t)rounds, sizeof(double));
    double *write_rgb = calloc((size_t)rounds, sizeof(double));
    double *write_planes = calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        int w, h;
        double started = cpu_ms();
        for (int i = 0; i < count; i++) {
            if (!decode(&photos[i], 0, &w, &h)) return 1;
        }
        at_scale[r] = (cpu_ms() - started) / count;
        /* Alternating which encode goes first. */
        for (int pass = 0; pass < 2; pass++) {
            int optimise = (pass + r) % 2;
            started = cpu_ms();
            for (int i = 0; i < count; i++) {
                if (!decode(&photos[i], 0, &w, &h) || encode(&photos[i], quality, optimise) == 0) return 1;
            }
            (optimise ? optimised : plain)[r] = (cpu_ms() - started) / count;
        }
        if (webp_quality) {
            started = cpu_ms();
            for (int i = 0; i < count; i++) {
                if (!decode(&photos[i], 0, &w, &h) || encode_webp(&photos[i], webp_quality) == 0) return 1;
            }
            webp[r] = (cpu_ms() - started) / count;
        }
        if (avif_quality) {
            started = cpu_ms();
            for (int i = 0; i < count; i++) {
                if (!decode(&photos[i], 0, &w, &h) || encode_avif(&photos[i], avif_quality, avif_speed) == 0) return 1;
            }
            avif[r] = (cpu_ms() - started) / count;
        }
        if (planes) {
            started = cpu_ms();
            for (int i = 0; i < count; i++) {
                if (!decode_planes(&photos[i])) return 1;
            }
            at_scale_planes[r] = (cpu_ms() - started) / count;
            /* The two writes alone, alternating which goes first. */
            for (int pass = 0; pass < 2; pass++) {
                int from_planes = (pass + r) % 2;
                started = cpu_ms();
                for (int i = 0; i < count; i++) {
                    if ((from_planes ? encode_planes(&photos[i], quality) : encode(&photos[i], quality, 1)) == 0) return 1;
                }
                (from_planes ? write_planes : write_rgb)[r] = (cpu_ms() - started) / count;
            }
        }
    }
    printf("decode_at_scale %.3f\n", median(at_scale, rounds));
    printf("decode_encode %.3f\n", median(plain, rounds));
    printf("decode_encode_optimised %.3f\n", median(optimised, rounds));
    if (webp_quality) printf("decode_encode_webp %.3f\n", median(webp, rounds));
    if (avif_quality) printf("decode_encode_avif %.3f\n", median(avif, rounds));
    if (planes) {
        printf("decode_at_scale_planes %.3f\n", median(at_scale_planes, rounds));
        printf("write_answer %.3f\n", median(write_rgb, rounds));
        printf("write_answer_planes %.3f\n", median(write_planes, rounds));
    }
    return 0;
}
