/*
 * The floors for a cold JPEG answer: the least CPU any thumbnailer built on
 * libjpeg-turbo spends on it, on one thread pinned to one core.
 *
 *     jpeg_floor CORE SIZE QUALITY ROUNDS FILE...
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
 * Each file is read into memory first; then ROUNDS passes over all of
 * them, and for each measure the median over the rounds of the CPU time
 * per image (CLOCK_THREAD_CPUTIME_ID), printed as milliseconds, one line
 * a measure: "decode_at_scale MS", "decode_encode MS", "decode_encode_optimised MS".
 */
#define _GNU_SOURCE
#include <sched.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jpeglib.h>

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
};

static double thread_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
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
        fprintf(stderr, "usage: jpeg_floor CORE SIZE QUALITY ROUNDS FILE...\n");
        return 2;
    }
    int core = atoi(argv[1]), size = atoi(argv[2]), quality = atoi(argv[3]), rounds = atoi(argv[4]);
    int count = argc - 5;
    if (size < 1 || quality < 1 || quality > 100 || rounds < 1) return 2;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        perror("sched_setaffinity");
        return 1;
    }
    struct photo *photos = calloc((size_t)count, sizeof(struct photo));
    for (int i = 0; i < count; i++) {
        FILE *f = fopen(argv[5 + i], "rb");
        if (!f) {
            perror(argv[5 + i]);
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
    }
    double *at_scale = calloc((size_t)rounds, sizeof(double));
    double *plain = calloc((size_t)rounds, sizeof(double));
    double *optimised = calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        int w, h;
        double started = thread_ms();
        for (int i = 0; i < count; i++) {
            if (!decode(&photos[i], 0, &w, &h)) return 1;
        }
        at_scale[r] = (thread_ms() - started) / count;
        /* Alternating which encode goes first. */
        for (int pass = 0; pass < 2; pass++) {
            int optimise = (pass + r) % 2;
            started = thread_ms();
            for (int i = 0; i < count; i++) {
                if (!decode(&photos[i], 0, &w, &h) || encode(&photos[i], quality, optimise) == 0) return 1;
            }
            (optimise ? optimised : plain)[r] = (thread_ms() - started) / count;
        }
    }
    printf("decode_at_scale %.3f\n", median(at_scale, rounds));
    printf("decode_encode %.3f\n", median(plain, rounds));
    printf("decode_encode_optimised %.3f\n", median(optimised, rounds));
    return 0;
}
