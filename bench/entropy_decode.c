/*
 * The floor for JPEG sources: libjpeg's entropy decoding alone
 * (jpeg_read_coefficients: Huffman decoding into DCT coefficients, no
 * IDCT, no upsampling, no colour conversion), which every thumbnailer of a
 * baseline or progressive JPEG has to do in full whatever size it wants.
 *
 *     entropy_decode THREADS SECONDS FILE...
 *
 * Reads the files into memory, then decodes them in turn on THREADS
 * threads for SECONDS and prints the images per second of all threads.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <malloc.h>

#include <jpeglib.h>

struct blob {
    unsigned char *data;
    unsigned long size;
};

struct worker {
    pthread_t thread;
    int first;
    long done;
};

struct failure {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
};

static struct blob *blobs;
static int count;
static double seconds;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void on_error(j_common_ptr cinfo) {
    (*cinfo->err->output_message)(cinfo);
    longjmp(((struct failure *)cinfo->err)->jump, 1);
}

static void *run(void *argument) {
    struct worker *worker = argument;
    struct jpeg_decompress_struct cinfo;
    struct failure failure;
    cinfo.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = on_error;
    jpeg_create_decompress(&cinfo);
    double deadline = now() + seconds;
    /* Each thread starts at another file, so that they do not all decode
     * the same one at the same moment. */
    for (int i = worker->first; now() < deadline; i++) {
        struct blob *blob = &blobs[i % count];
        if (setjmp(failure.jump)) {
            fprintf(stderr, "entropy_decode: file %d does not decode\n", i % count);
            exit(1);
        }
        jpeg_mem_src(&cinfo, blob->data, blob->size);
        jpeg_read_header(&cinfo, TRUE);
        jpeg_read_coefficients(&cinfo);
        jpeg_finish_decompress(&cinfo);
        worker->done++;
    }
    jpeg_destroy_decompress(&cinfo);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: entropy_decode THREADS SECONDS FILE...\n");
        return 2;
    }
    /* libjpeg frees an image's coefficient arrays after each decode; with
     * glibc's defaults, big blocks go back to the kernel and come back as
     * fresh zeroed pages, and the page faults cost more than the decoding.
     * Keep freed memory for the next image, as a long-running server does. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 256 << 20);
    int threads = atoi(argv[1]);
    seconds = atof(argv[2]);
    count = argc - 3;
    if (threads < 1 || seconds <= 0) {
        fprintf(stderr, "entropy_decode: THREADS >= 1 and SECONDS > 0\n");
        return 2;
    }
    blobs = calloc(count, sizeof *blobs);
    for (int i = 0; i < count; i++) {
        FILE *file = fopen(argv[i + 3], "rb");
        if (!file || fseek(file, 0, SEEK_END) != 0) {
            perror(argv[i + 3]);
            return 1;
        }
        blobs[i].size = ftell(file);
        rewind(file);
        blobs[i].data = malloc(blobs[i].size);
        if (fread(blobs[i].data, 1, blobs[i].size, file) != blobs[i].size) {
            perror(argv[i + 3]);
            return 1;
        }
        fclose(file);
    }
    struct worker *workers = calloc(threads, sizeof *workers);
    double start = now();
    for (int t = 0; t < threads; t++) {
        workers[t].first = t * count / threads;
        pthread_create(&workers[t].thread, NULL, run, &workers[t]);
    }
    long done = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(workers[t].thread, NULL);
        done += workers[t].done;
    }
    printf("%.1f images/s\n", done / (now() - start));
    return 0;
}
