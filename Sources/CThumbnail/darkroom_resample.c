#include "darkroom_resample.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define DR_X86 1
#endif

// MARK: - The Lanczos-3 kernel, from a table

// sin(x) twice for every tap of every output pixel cost more than the
// resampling of a small image; a table with linear interpolation between
// 4096 steps a unit is exact to far below the weights' 14 bits.
enum { KERNEL_STEPS = 4096, KERNEL_SIZE = 3 * KERNEL_STEPS + 2 };
static float kernel_table[KERNEL_SIZE];
static pthread_once_t kernel_once = PTHREAD_ONCE_INIT;

static double lanczos3_exact(double x) {
    if (x == 0.0) return 1.0;
    if (x <= -3.0 || x >= 3.0) return 0.0;
    double px = M_PI * x;
    return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

static void make_kernel_table(void) {
    for (int i = 0; i < KERNEL_SIZE; i++) kernel_table[i] = (float)lanczos3_exact((double)i / KERNEL_STEPS);
}

static double lanczos3(double x) {
    x = fabs(x);
    if (x >= 3.0) return 0.0;
    double position = x * KERNEL_STEPS;
    int i = (int)position;
    double fraction = position - i;
    return kernel_table[i] + (kernel_table[i + 1] - kernel_table[i]) * fraction;
}

// MARK: - Weights, in fixed point

// 16-bit weights with 14 fractional bits, so that two taps multiply and add
// in one pmaddwd. Each output pixel's weights sum to exactly 1 << PRECISION.
enum { PRECISION = 14, HALF = 1 << (PRECISION - 1) };

typedef struct {
    int *start;       // first input index of each output index
    int *count;       // taps of each output index that carry weight
    int16_t *weights; // `taps` weights for each output index, zero-padded
    int taps;         // the most taps any output index has, rounded up to even
} coefficients;

static void free_coefficients(coefficients *c) {
    free(c->start);
    free(c->count);
    free(c->weights);
}

static int make_coefficients(coefficients *c, int in_size, int out_size) {
    double scale = (double)in_size / out_size;
    double filter_scale = scale < 1.0 ? 1.0 : scale;
    double support = 3.0 * filter_scale;
    int taps = ((int)ceil(support) * 2 + 2) & ~1;
    c->taps = taps;
    c->start = malloc(sizeof(int) * (size_t)out_size);
    c->count = malloc(sizeof(int) * (size_t)out_size);
    c->weights = calloc((size_t)out_size * (size_t)taps, sizeof(int16_t));
    double *row = malloc(sizeof(double) * (size_t)taps);
    if (!c->start || !c->count || !c->weights || !row) {
        free(row);
        return -1;
    }
    for (int out = 0; out < out_size; out++) {
        double centre = (out + 0.5) * scale;
        int first = (int)(centre - support + 0.5);
        if (first < 0) first = 0;
        int last = (int)(centre + support + 0.5);
        if (last > in_size) last = in_size;
        int count = last - first;
        if (count > taps) count = taps;
        if (count < 1) {
            // Only where the kernel misses every input: take the nearest.
            first = (int)centre < in_size ? (int)centre : in_size - 1;
            count = 1;
        }
        double total = 0;
        for (int i = 0; i < count; i++) {
            row[i] = lanczos3((first + i - centre + 0.5) / filter_scale);
            total += row[i];
        }
        int16_t *weights = c->weights + (size_t)out * (size_t)taps;
        int sum = 0, largest = 0;
        for (int i = 0; i < count; i++) {
            double w = total != 0 ? row[i] / total : (i == 0 ? 1.0 : 0.0);
            weights[i] = (int16_t)lround(w * (1 << PRECISION));
            sum += weights[i];
            if (weights[i] > weights[largest]) largest = i;
        }
        // Rounding must not brighten or darken: the remainder goes to the
        // largest weight.
        weights[largest] = (int16_t)(weights[largest] + (1 << PRECISION) - sum);
        c->start[out] = first;
        c->count[out] = count;
    }
    free(row);
    return 0;
}

static inline uint8_t clip8(int32_t value) {
    value >>= PRECISION;
    return value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
}

// MARK: - The kernels: down (rows into a row) and across (a row into pixels)

// Down: out[x] = sum over i of rows[i][x] * w[i], for `length` bytes; the
// taps come in pairs (`count` even: a padding tap has weight 0 and a row
// that exists). The vector versions write up to 31 bytes past `length`
// and read as far past each row: every buffer has that slack.
typedef void (*down_kernel)(const uint8_t *const *rows, const int16_t *w, int count, uint8_t *out, size_t length);

// Across: RGBX `in` to `out_width` RGBX pixels.
struct dr_resampler;
typedef void (*across_kernel)(const uint8_t *in, uint8_t *out, const struct dr_resampler *r);

static void down_scalar(const uint8_t *const *rows, const int16_t *w, int count, uint8_t *out, size_t length) {
    for (size_t x = 0; x < length; x++) {
        int32_t sum = HALF;
        for (int i = 0; i < count; i++) sum += rows[i][x] * w[i];
        out[x] = clip8(sum);
    }
}

struct dr_resampler {
    int in_width, in_height, in_bands, out_width, out_height;
    coefficients across, down;
    // The across weights laid out for the AVX2 kernel: for each pair of
    // output pixels, for each group of four taps, two vectors (taps 0-1 and
    // 2-3 of the group), the pair's first pixel in the low lane.
    int16_t *pair_weights;
    int *pair_groups;
    int groups;
    int across_bands;     // bytes a pixel of the row the across kernel reads
    down_kernel down_pass;
    across_kernel across_pass;

    uint8_t *ring;        // room for the window of input rows, when lent
    size_t ring_stride;
    int ring_rows;
    const uint8_t **row_at; // input row y is at row_at[y % ring_rows]
    int pushed;           // input rows pushed so far
    int lent;             // rows lent by the last dr_resampler_lend
    int next_out;         // the next output row to make
    const uint8_t **window;
    uint8_t *column;      // one row resampled down, in_bands a pixel
    uint8_t *wide;        // the same as RGBX, when in_bands is 3
    uint8_t *result;
};

static void across_scalar(const uint8_t *in, uint8_t *out, const struct dr_resampler *r) {
    const coefficients *c = &r->across;
    for (int x = 0; x < r->out_width; x++) {
        const uint8_t *p = in + (size_t)c->start[x] * 4;
        const int16_t *w = c->weights + (size_t)x * (size_t)c->taps;
        int32_t red = HALF, green = HALF, blue = HALF;
        for (int i = 0; i < c->count[x]; i++, p += 4) {
            red += p[0] * w[i];
            green += p[1] * w[i];
            blue += p[2] * w[i];
        }
        out[x * 4 + 0] = clip8(red);
        out[x * 4 + 1] = clip8(green);
        out[x * 4 + 2] = clip8(blue);
        out[x * 4 + 3] = 255;
    }
}

#if DR_X86
#include <emmintrin.h>

/// Two 16-bit weights, repeated in every 32-bit lane, for pmaddwd.
static inline __m128i weight_pair(const int16_t *w) {
    return _mm_set1_epi32((int32_t)((uint32_t)(uint16_t)w[0] | (uint32_t)(uint16_t)w[1] << 16));
}

static void down_sse2(const uint8_t *const *rows, const int16_t *w, int count, uint8_t *out, size_t length) {
    const __m128i zero = _mm_setzero_si128();
    for (size_t x = 0; x < length; x += 16) {
        __m128i s0 = _mm_set1_epi32(HALF), s1 = s0, s2 = s0, s3 = s0;
        for (int i = 0; i < count; i += 2) {
            __m128i a = _mm_loadu_si128((const __m128i *)(rows[i] + x));
            __m128i b = _mm_loadu_si128((const __m128i *)(rows[i + 1] + x));
            __m128i pair = weight_pair(w + i);
            __m128i low = _mm_unpacklo_epi8(a, b), high = _mm_unpackhi_epi8(a, b);
            s0 = _mm_add_epi32(s0, _mm_madd_epi16(_mm_unpacklo_epi8(low, zero), pair));
            s1 = _mm_add_epi32(s1, _mm_madd_epi16(_mm_unpackhi_epi8(low, zero), pair));
            s2 = _mm_add_epi32(s2, _mm_madd_epi16(_mm_unpacklo_epi8(high, zero), pair));
            s3 = _mm_add_epi32(s3, _mm_madd_epi16(_mm_unpackhi_epi8(high, zero), pair));
        }
        __m128i words0 = _mm_packs_epi32(_mm_srai_epi32(s0, PRECISION), _mm_srai_epi32(s1, PRECISION));
        __m128i words1 = _mm_packs_epi32(_mm_srai_epi32(s2, PRECISION), _mm_srai_epi32(s3, PRECISION));
        _mm_storeu_si128((__m128i *)(out + x), _mm_packus_epi16(words0, words1));
    }
}

static void across_sse2(const uint8_t *in, uint8_t *out, const struct dr_resampler *r) {
    const coefficients *c = &r->across;
    const __m128i zero = _mm_setzero_si128();
    for (int x = 0; x < r->out_width; x++) {
        const uint8_t *p = in + (size_t)c->start[x] * 4;
        const int16_t *w = c->weights + (size_t)x * (size_t)c->taps;
        __m128i sum = _mm_set1_epi32(HALF);
        for (int i = 0; i < c->count[x]; i += 2, p += 8) {
            // R0 G0 B0 X0 R1 G1 B1 X1 -> R0 R1 G0 G1 B0 B1 X0 X1, as 16 bits.
            __m128i two = _mm_loadl_epi64((const __m128i *)p);
            __m128i paired = _mm_unpacklo_epi8(_mm_unpacklo_epi8(two, _mm_srli_si128(two, 4)), zero);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(paired, weight_pair(w + i)));
        }
        sum = _mm_srai_epi32(sum, PRECISION);
        __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(sum, zero), zero);
        uint32_t pixel = (uint32_t)_mm_cvtsi128_si32(bytes) | 0xFF000000u;
        memcpy(out + (size_t)x * 4, &pixel, 4);
    }
}

__attribute__((target("avx2")))
static void down_avx2(const uint8_t *const *rows, const int16_t *w, int count, uint8_t *out, size_t length) {
    const __m256i zero = _mm256_setzero_si256();
    for (size_t x = 0; x < length; x += 32) {
        __m256i s0 = _mm256_set1_epi32(HALF), s1 = s0, s2 = s0, s3 = s0;
        for (int i = 0; i < count; i += 2) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(rows[i] + x));
            __m256i b = _mm256_loadu_si256((const __m256i *)(rows[i + 1] + x));
            __m256i pair = _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)w[i] | (uint32_t)(uint16_t)w[i + 1] << 16));
            // Within each 128-bit lane, as the packs below undo it.
            __m256i low = _mm256_unpacklo_epi8(a, b), high = _mm256_unpackhi_epi8(a, b);
            s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_unpacklo_epi8(low, zero), pair));
            s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_unpackhi_epi8(low, zero), pair));
            s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_unpacklo_epi8(high, zero), pair));
            s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_unpackhi_epi8(high, zero), pair));
        }
        __m256i words0 = _mm256_packs_epi32(_mm256_srai_epi32(s0, PRECISION), _mm256_srai_epi32(s1, PRECISION));
        __m256i words1 = _mm256_packs_epi32(_mm256_srai_epi32(s2, PRECISION), _mm256_srai_epi32(s3, PRECISION));
        _mm256_storeu_si256((__m256i *)(out + x), _mm256_packus_epi16(words0, words1));
    }
}

// Two output pixels at once, one per 128-bit lane; four taps a step: two
// pixels' worth of 16-bit pairs from each half of a 16-byte load. Reads RGB
// (3 bytes a pixel) or RGBX (4) as they are: the shuffles pick the bytes.
__attribute__((target("avx2")))
static void across_avx2(const uint8_t *in, uint8_t *out, const struct dr_resampler *r) {
    const int bands = r->across_bands;
    const __m256i first = bands == 3
        ? _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1,
                           0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1)
        : _mm256_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1,
                           0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1);
    const __m256i second = bands == 3
        ? _mm256_setr_epi8(6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1,
                           6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1)
        : _mm256_setr_epi8(8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1,
                           8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1);
    const size_t step = (size_t)bands * 4;
    const int *start = r->across.start;
    const int pairs = (r->out_width + 1) / 2;
    for (int pair = 0; pair < pairs; pair++) {
        int a = pair * 2, b = a + 1 < r->out_width ? a + 1 : a;
        const uint8_t *pa = in + (size_t)start[a] * (size_t)bands, *pb = in + (size_t)start[b] * (size_t)bands;
        const __m256i *w = (const __m256i *)(r->pair_weights + (size_t)pair * (size_t)r->groups * 32);
        __m256i sum = _mm256_set1_epi32(HALF);
        for (int g = 0; g < r->pair_groups[pair]; g++, pa += step, pb += step) {
            __m256i pixels = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)pa)),
                                                     _mm_loadu_si128((const __m128i *)pb), 1);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels, first), _mm256_loadu_si256(w + g * 2)));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels, second), _mm256_loadu_si256(w + g * 2 + 1)));
        }
        sum = _mm256_srai_epi32(sum, PRECISION);
        __m256i words = _mm256_packs_epi32(sum, sum);
        __m256i bytes = _mm256_packus_epi16(words, words);
        uint32_t pa_pixel = (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(bytes)) | 0xFF000000u;
        uint32_t pb_pixel = (uint32_t)_mm_cvtsi128_si32(_mm256_extracti128_si256(bytes, 1)) | 0xFF000000u;
        memcpy(out + (size_t)a * 4, &pa_pixel, 4);
        if (b != a) memcpy(out + (size_t)b * 4, &pb_pixel, 4);
    }
}

/// Whether the processor and the operating system both do AVX2.
static int has_avx2(void) {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    if (!(ecx & bit_OSXSAVE) || !(ecx & bit_AVX)) return 0;
    unsigned xcr0_low, xcr0_high;
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6) != 6) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx & bit_AVX2) != 0;
}
#endif

static pthread_once_t kernels_once = PTHREAD_ONCE_INIT;
static down_kernel chosen_down = down_scalar;
static across_kernel chosen_across = across_scalar;
static int chosen_pairs = 0;
// Whether the across kernel reads 3-byte pixels as they are; if not, a row
// of RGB is widened to RGBX first.
static int chosen_reads_rgb = 0;

static void choose_kernels(void) {
    make_kernel_table();
#if DR_X86
    // DARKROOM_RESAMPLE_NO_AVX2 makes the SSE2 kernels testable on any machine.
    const char *no_avx2 = getenv("DARKROOM_RESAMPLE_NO_AVX2");
    if (has_avx2() && !(no_avx2 && *no_avx2)) {
        chosen_down = down_avx2;
        chosen_across = across_avx2;
        chosen_pairs = 1;
        chosen_reads_rgb = 1;
    } else {
        chosen_down = down_sse2;
        chosen_across = across_sse2;
    }
#endif
}

// MARK: - The stream

enum { MAX_SIDE = 1 << 20, MAX_LEND = 16, SLACK = 64 };

static int make_pair_weights(dr_resampler *r) {
    const coefficients *c = &r->across;
    int pairs = (r->out_width + 1) / 2;
    r->groups = (c->taps + 3) / 4;
    r->pair_groups = malloc(sizeof(int) * (size_t)pairs);
    r->pair_weights = calloc((size_t)pairs * (size_t)r->groups * 32, sizeof(int16_t));
    if (!r->pair_groups || !r->pair_weights) return -1;
    for (int pair = 0; pair < pairs; pair++) {
        int a = pair * 2, b = a + 1 < r->out_width ? a + 1 : a;
        int taps = c->count[a] > c->count[b] ? c->count[a] : c->count[b];
        r->pair_groups[pair] = (taps + 3) / 4;
        int16_t *w = r->pair_weights + (size_t)pair * (size_t)r->groups * 32;
        for (int g = 0; g < r->pair_groups[pair]; g++) {
            for (int lane = 0; lane < 2; lane++) {
                int x = lane ? b : a;
                const int16_t *source = c->weights + (size_t)x * (size_t)c->taps;
                for (int half = 0; half < 2; half++) {
                    int tap = g * 4 + half * 2;
                    int16_t w0 = tap < c->count[x] ? source[tap] : 0;
                    int16_t w1 = tap + 1 < c->count[x] ? source[tap + 1] : 0;
                    int16_t *vector = w + (size_t)(g * 2 + half) * 16 + lane * 8;
                    for (int i = 0; i < 4; i++) {
                        vector[i * 2] = w0;
                        vector[i * 2 + 1] = w1;
                    }
                }
            }
        }
    }
    return 0;
}

dr_resampler *dr_resampler_new(int in_width, int in_height, int in_bands, int out_width, int out_height) {
    if (in_width < 1 || in_height < 1 || out_width < 1 || out_height < 1 || in_width > MAX_SIDE || in_height > MAX_SIDE ||
        out_width > MAX_SIDE || out_height > MAX_SIDE || (in_bands != 3 && in_bands != 4)) {
        return NULL;
    }
    pthread_once(&kernels_once, choose_kernels);
    dr_resampler *r = calloc(1, sizeof(dr_resampler));
    if (!r) return NULL;
    r->in_width = in_width;
    r->in_height = in_height;
    r->in_bands = in_bands;
    r->out_width = out_width;
    r->out_height = out_height;
    r->down_pass = chosen_down;
    r->across_pass = chosen_across;
    r->across_bands = in_bands == 3 && chosen_reads_rgb ? 3 : 4;
    size_t row_bytes = (size_t)in_width * (size_t)in_bands;
    if (make_coefficients(&r->across, in_width, out_width) != 0 || make_coefficients(&r->down, in_height, out_height) != 0 ||
        (chosen_pairs && make_pair_weights(r) != 0)) {
        dr_resampler_free(r);
        return NULL;
    }
    // Room for every row one output row needs, and a batch more.
    r->ring_rows = r->down.taps + MAX_LEND;
    r->ring_stride = (row_bytes + SLACK + 31) & ~(size_t)31;
    size_t across_slack = ((size_t)r->across.taps + 16) * 4;
    r->row_at = calloc((size_t)r->ring_rows, sizeof(uint8_t *));
    r->window = malloc(sizeof(uint8_t *) * ((size_t)r->down.taps + 2));
    r->column = calloc(1, row_bytes + SLACK + across_slack);
    r->wide = r->across_bands != in_bands ? calloc(1, (size_t)in_width * 4 + across_slack) : NULL;
    r->result = malloc((size_t)out_width * (size_t)out_height * 4 + SLACK);
    if (!r->row_at || !r->window || !r->column || (r->across_bands != in_bands && !r->wide) || !r->result) {
        dr_resampler_free(r);
        return NULL;
    }
    return r;
}

int dr_resampler_lend(dr_resampler *r, uint8_t **rows, int max) {
    if (!r->ring) {
        // Zeroed: the vector kernels read the slack past each row (and
        // multiply it by 0), which must still be defined memory.
        r->ring = calloc((size_t)r->ring_rows, r->ring_stride);
        if (!r->ring) return 0;
    }
    // Rows older than the oldest one the next output row needs may go.
    int oldest = r->next_out < r->out_height ? r->down.start[r->next_out] : r->pushed;
    int room = oldest + r->ring_rows - r->pushed;
    int count = r->in_height - r->pushed;
    if (count > room) count = room;
    if (count > max) count = max;
    if (count > MAX_LEND) count = MAX_LEND;
    if (count < 0) count = 0;
    for (int i = 0; i < count; i++) {
        int slot = (r->pushed + i) % r->ring_rows;
        rows[i] = r->ring + (size_t)slot * r->ring_stride;
        r->row_at[slot] = rows[i];
    }
    r->lent = count;
    return count;
}

static const uint8_t *ring_row(const dr_resampler *r, int y) {
    return r->row_at[y % r->ring_rows];
}

static void make_row(dr_resampler *r, int y) {
    const coefficients *down = &r->down;
    int first = down->start[y], count = down->count[y];
    for (int i = 0; i < count; i++) r->window[i] = ring_row(r, first + i);
    int padded = (count + 1) & ~1;
    if (padded > count) r->window[count] = r->window[0]; // weight 0
    size_t row_bytes = (size_t)r->in_width * (size_t)r->in_bands;
    r->down_pass(r->window, down->weights + (size_t)y * (size_t)down->taps, padded, r->column, row_bytes);
    const uint8_t *across = r->column;
    if (r->across_bands != r->in_bands) {
        const uint8_t *p = r->column;
        uint8_t *q = r->wide;
        for (int x = 0; x < r->in_width; x++, p += 3, q += 4) {
            q[0] = p[0];
            q[1] = p[1];
            q[2] = p[2];
            q[3] = 255;
        }
        across = r->wide;
    }
    r->across_pass(across, r->result + (size_t)y * (size_t)r->out_width * 4, r);
}

static void make_ready_rows(dr_resampler *r) {
    while (r->next_out < r->out_height && r->down.start[r->next_out] + r->down.count[r->next_out] <= r->pushed) {
        make_row(r, r->next_out);
        r->next_out++;
    }
}

void dr_resampler_push(dr_resampler *r, int count) {
    if (count < 0) count = 0;
    if (count > r->lent) count = r->lent;
    r->pushed += count;
    r->lent = 0;
    make_ready_rows(r);
}

void dr_resampler_push_row(dr_resampler *r, const uint8_t *row) {
    if (r->pushed >= r->in_height) return;
    // The slot's previous row is older than any row still needed: the
    // window never spans more than ring_rows - MAX_LEND rows.
    r->row_at[r->pushed % r->ring_rows] = row;
    r->pushed++;
    make_ready_rows(r);
}

uint8_t *dr_resampler_finish(dr_resampler *r) {
    if (r->next_out < r->out_height) return NULL;
    uint8_t *result = r->result;
    r->result = NULL;
    return result;
}

void dr_resampler_free(dr_resampler *r) {
    if (!r) return;
    free_coefficients(&r->across);
    free_coefficients(&r->down);
    free(r->pair_weights);
    free(r->pair_groups);
    free(r->ring);
    free(r->row_at);
    free(r->window);
    free(r->column);
    free(r->wide);
    free(r->result);
    free(r);
}
