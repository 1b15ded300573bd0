/*
 * What colour conversion costs inside the floor of a cold JPEG answer
 * (bench/jpeg_floor.c): the limit of a pipeline that would carry YCbCr
 * planes from the decoder to the encoder instead of RGB rows.
 *
 *     jpeg_planes CORE ROUNDS FILE...
 *
 * decode_rgb: each file decoded at the floor's shrink-on-load scale (the
 *   largest of 8, 4 and 2 that keeps its longer side at least 512) into RGB
 *   rows, as the floor and the thumbnail path decode;
 * decode_raw: the same decode into YCbCr planes (jpeg_read_raw_data), no
 *   colour conversion; it prints each component's size at that scale;
 * encode_rgb: a 512 x 320 answer written from RGB rows at quality 80, 4:2:0,
 *   Huffman tables made for the image;
 * encode_raw: the same pixels written from Y, Cb and Cr planes already at
 *   4:2:0 (jpeg_write_raw_data), no conversion and no chroma downsampling.
 *
 * CPU ms an image (the thread's CPU clock), median (min-max) of ROUNDS, the
 * order of the four alternating from round to round. Sources must be
 * 3-component YCbCr JPEGs; a libjpeg error ends the run with libjpeg's own
 * message. The answer written is a synthetic picture, the same in both
 * forms: only the difference between the two writes carries over to photos.
 *
 * Build: cc -O2 -o jpeg_planes bench/jpeg_planes.c -ljpeg
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jpeglib.h>

enum { SIZE = 512, WIDTH = 512, HEIGHT = 320, QUALITY = 80, MEASURES = 4 };

struct photo {
    unsigned char *data;
    unsigned long size;
    int denom;
};

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Decodes `p` at its scale, as RGB rows or as YCbCr planes. */
static void decode(const struct photo *p, int raw, int describe) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr errors;
    cinfo.err = jpeg_std_error(&errors);
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, p->data, p->size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned)p->denom;
    if (raw) cinfo.raw_data_out = TRUE;
    else cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    if (!raw) {
        static unsigned char row[3 * 16384];
        JSAMPROW rows[1] = {row};
        while (cinfo.output_scanline < cinfo.output_height) jpeg_read_scanlines(&cinfo, rows, 1);
    } else {
        /* One iMCU row of each component: at most 4 x 8 rows. */
        static unsigned char planes[3][32][16384];
        JSAMPROW rows[3][32];
        JSAMPARRAY components[3];
        for (int c = 0; c < 3; c++) {
            for (int i = 0; i < 32; i++) rows[c][i] = planes[c][i];
            components[c] = rows[c];
        }
        if (describe) {
            for (int c = 0; c < 3; c++) {
                jpeg_component_info *info = &cinfo.comp_info[c];
                fprintf(stderr, "  component %d: sampling %dx%d, IDCT %d px, planes %u x %u\n", c, info->h_samp_factor,
                        info->v_samp_factor, info->DCT_scaled_size, info->downsampled_width, info->downsampled_height);
            }
        }
        int lines = cinfo.max_v_samp_factor * cinfo.min_DCT_scaled_size;
        while (cinfo.output_scanline < cinfo.output_height) jpeg_read_raw_data(&cinfo, components, (JDIMENSION)lines);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
}

/* The answer's pixels, the same in both forms: RGB rows, and the Y, Cb and
 * Cr planes (JFIF's arithmetic, chroma averaged over 2 x 2) made from them. */
static unsigned char rgb[HEIGHT][WIDTH * 3], luma[HEIGHT][WIDTH], cb[HEIGHT / 2][WIDTH / 2], cr[HEIGHT / 2][WIDTH / 2];

static void make_answer(void) {
    for (int y = 0; y < HEIGHT; y++) {
        for (int x = 0; x < WIDTH * 3; x++) rgb[y][x] = (unsigned char)(((y * WIDTH * 3 + x) * 7919L) >> 5);
        for (int x = 0; x < WIDTH; x++) {
            const unsigned char *p = &rgb[y][x * 3];
            luma[y][x] = (unsigned char)(0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2]);
        }
    }
    for (int y = 0; y < HEIGHT / 2; y++) {
        for (int x = 0; x < WIDTH / 2; x++) {
            double b = 0, r = 0;
            for (int i = 0; i < 4; i++) {
                const unsigned char *p = &rgb[2 * y + i / 2][(2 * x + i % 2) * 3];
                b += 128 - 0.168736 * p[0] - 0.331264 * p[1] + 0.5 * p[2];
                r += 128 + 0.5 * p[0] - 0.418688 * p[1] - 0.081312 * p[2];
            }
            cb[y][x] = (unsigned char)(b / 4);
            cr[y][x] = (unsigned char)(r / 4);
        }
    }
}

/* Writes the answer from RGB rows or from planes; returns its size. */
static unsigned long encode(int raw) {
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr errors;
    unsigned char *out = NULL;
    unsigned long size = 0;
    cinfo.err = jpeg_std_error(&errors);
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &out, &size);
    cinfo.image_width = WIDTH;
    cinfo.image_height = HEIGHT;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, QUALITY, TRUE);
    cinfo.optimize_coding = TRUE;
    if (raw) cinfo.raw_data_in = TRUE;
    jpeg_start_compress(&cinfo, TRUE);
    if (!raw) {
        while (cinfo.next_scanline < cinfo.image_height) {
            JSAMPROW row = rgb[cinfo.next_scanline];
            jpeg_write_scanlines(&cinfo, &row, 1);
        }
    } else {
        /* 16 luma rows and 8 of each chroma plane at a time (4:2:0). */
        JSAMPROW y_rows[16], b_rows[8], r_rows[8];
        JSAMPARRAY planes[3] = {y_rows, b_rows, r_rows};
        while (cinfo.next_scanline < cinfo.image_height) {
            int top = (int)cinfo.next_scanline;
            for (int i = 0; i < 16; i++) y_rows[i] = luma[top + i];
            for (int i = 0; i < 8; i++) {
                b_rows[i] = cb[top / 2 + i];
                r_rows[i] = cr[top / 2 + i];
            }
            jpeg_write_raw_data(&cinfo, planes, 16);
        }
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

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: jpeg_planes CORE ROUNDS FILE...\n");
        return 2;
    }
    cpu_set_t cores;
    CPU_ZERO(&cores);
    CPU_SET(atoi(argv[1]), &cores);
    if (sched_setaffinity(0, sizeof cores, &cores) != 0) perror("sched_setaffinity");
    int rounds = atoi(argv[2]), count = argc - 3;
    if (rounds < 1) rounds = 1;
    struct photo *photos = calloc((size_t)count, sizeof *photos);
    for (int i = 0; i < count; i++) {
        FILE *file = fopen(argv[3 + i], "rb");
        if (!file) {
            perror(argv[3 + i]);
            return 1;
        }
        fseek(file, 0, SEEK_END);
        photos[i].size = (unsigned long)ftell(file);
        rewind(file);
        photos[i].data = malloc(photos[i].size);
        if (fread(photos[i].data, 1, photos[i].size, file) != photos[i].size) {
            fprintf(stderr, "%s: short read\n", argv[3 + i]);
            return 1;
        }
        fclose(file);
        struct jpeg_decompress_struct cinfo;
        struct jpeg_error_mgr errors;
        cinfo.err = jpeg_std_error(&errors);
        jpeg_create_decompress(&cinfo);
        jpeg_mem_src(&cinfo, photos[i].data, photos[i].size);
        jpeg_read_header(&cinfo, TRUE);
        if (cinfo.num_components != 3 || cinfo.jpeg_color_space != JCS_YCbCr) {
            fprintf(stderr, "%s: not a 3-component YCbCr JPEG, which is all this measures\n", argv[3 + i]);
            return 1;
        }
        unsigned side = cinfo.image_width > cinfo.image_height ? cinfo.image_width : cinfo.image_height;
        photos[i].denom = 1;
        for (int k = 8; k >= 2; k /= 2) {
            if ((unsigned)k * SIZE <= side) {
                photos[i].denom = k;
                break;
            }
        }
        fprintf(stderr, "%s: %u x %u at 1/%d\n", argv[3 + i], cinfo.image_width, cinfo.image_height, photos[i].denom);
        jpeg_destroy_decompress(&cinfo);
        decode(&photos[i], 1, 1);
    }
    make_answer();
    const char *names[MEASURES] = {"decode_rgb", "decode_raw", "encode_rgb", "encode_raw"};
    double *figures[MEASURES];
    for (int m = 0; m < MEASURES; m++) figures[m] = calloc((size_t)rounds, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        for (int step = 0; step < MEASURES; step++) {
            int m = r % 2 ? MEASURES - 1 - step : step;
            double start = cpu_ms();
            for (int i = 0; i < count; i++) {
                if (m < 2) decode(&photos[i], m == 1, 0);
                else encode(m == 3);
            }
            figures[m][r] = (cpu_ms() - start) / count;
        }
    }
    for (int m = 0; m < MEASURES; m++) {
        qsort(figures[m], (size_t)rounds, sizeof(double), compare);
        printf("%s %.3f (%.3f-%.3f)\n", names[m], figures[m][rounds / 2], figures[m][0], figures[m][rounds - 1]);
    }
    return 0;
}
