#include "darkroom_resample_kernels.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define DR_X86 1
#endif

static inline uint8_t clip8(int32_t value) {
    value >>= DR_PRECISION;
    return value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
}

// MARK: - Plain C

static void down_scalar(const uint8_t *const *rows, const int16_t *w, int count, uint8_t *out, size_t length) {
    for (size_t x = 0; x < length; x++) {
        int32_t sum = DR_HALF;
        for (int i = 0; i < count; i++) sum += rows[i][x] * w[i];
        out[x] = clip8(sum);
    }
}

static void across_scalar(const uint8_t *in, uint8_t *out, const dr_across_plan *plan) {
    const int bands = plan->bands;
    for (int x = 0; x < plan->outputs; x++) {
        const uint8_t *p = in + (size_t)plan->start[x] * (size_t)bands;
        const int16_t *w = plan->weights + (size_t)x * (size_t)plan->taps;
        int32_t red = DR_HALF, green = DR_HALF, blue = DR_HALF;
        for (int i = 0; i < plan->points; i++, p += bands) {
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

// MARK: - SSE2 (every x86-64 processor)

/// Two 16-bit weights, repeated in every 32-bit lane, for pmaddwd.
static inline __m128i weight_pair(const int16_t *w) {
    return _mm_set1_epi32((int32_t)((uint32_t)(uint16_t)w[0] | (uint32_t)(uint16_t)w[1] << 16));
}

static void down_sse2(const uint8_t *const *rows, const int16_t *w, int count, uint8_t *out, size_t length) {
    const __m128i zero = _mm_setzero_si128();
    for (size_t x = 0; x < length; x += 16) {
        __m128i s0 = _mm_set1_epi32(DR_HALF), s1 = s0, s2 = s0, s3 = s0;
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
        __m128i words0 = _mm_packs_epi32(_mm_srai_epi32(s0, DR_PRECISION), _mm_srai_epi32(s1, DR_PRECISION));
        __m128i words1 = _mm_packs_epi32(_mm_srai_epi32(s2, DR_PRECISION), _mm_srai_epi32(s3, DR_PRECISION));
        _mm_storeu_si128((__m128i *)(out + x), _mm_packus_epi16(words0, words1));
    }
}

// RGBX in: two pixels a step, R0 R1 G0 G1 B0 B1 X0 X1 as 16 bits.
static void across_sse2(const uint8_t *in, uint8_t *out, const dr_across_plan *plan) {
    const __m128i zero = _mm_setzero_si128();
    for (int x = 0; x < plan->outputs; x++) {
        const uint8_t *p = in + (size_t)plan->start[x] * 4;
        const int16_t *w = plan->weights + (size_t)x * (size_t)plan->taps;
        __m128i sum = _mm_set1_epi32(DR_HALF);
        for (int i = 0; i < plan->taps; i += 2, p += 8) {
            __m128i two = _mm_loadl_epi64((const __m128i *)p);
            __m128i paired = _mm_unpacklo_epi8(_mm_unpacklo_epi8(two, _mm_srli_si128(two, 4)), zero);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(paired, weight_pair(w + i)));
        }
        sum = _mm_srai_epi32(sum, DR_PRECISION);
        __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(sum, zero), zero);
        uint32_t pixel = (uint32_t)_mm_cvtsi128_si32(bytes) | 0xFF000000u;
        memcpy(out + (size_t)x * 4, &pixel, 4);
    }
}

// MARK: - AVX2

__attribute__((target("avx2")))
static void down_avx2(const uint8_t *const *rows, const int16_t *w, int count, uint8_t *out, size_t length) {
    const __m256i zero = _mm256_setzero_si256();
    for (size_t x = 0; x < length; x += 32) {
        __m256i s0 = _mm256_set1_epi32(DR_HALF), s1 = s0, s2 = s0, s3 = s0;
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
        __m256i words0 = _mm256_packs_epi32(_mm256_srai_epi32(s0, DR_PRECISION), _mm256_srai_epi32(s1, DR_PRECISION));
        __m256i words1 = _mm256_packs_epi32(_mm256_srai_epi32(s2, DR_PRECISION), _mm256_srai_epi32(s3, DR_PRECISION));
        _mm256_storeu_si256((__m256i *)(out + x), _mm256_packus_epi16(words0, words1));
    }
}

// Two outputs at once, one per 128-bit lane; four taps a step: two
// pixels' worth of 16-bit pairs from each half of a 16-byte load. Reads RGB
// (3 bytes a pixel) or RGBX (4) as they are: the shuffles pick the bytes.
__attribute__((target("avx2")))
static void across_avx2(const uint8_t *in, uint8_t *out, const dr_across_plan *plan) {
    const int bands = plan->bands;
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
    const int pairs = (plan->outputs + 1) / 2;
    for (int pair = 0; pair < pairs; pair++) {
        int a = pair * 2, b = a + 1 < plan->outputs ? a + 1 : a;
        const uint8_t *pa = in + (size_t)plan->start[a] * (size_t)bands, *pb = in + (size_t)plan->start[b] * (size_t)bands;
        const __m256i *w = (const __m256i *)(plan->pair_weights + (size_t)pair * (size_t)plan->groups * 32);
        __m256i sum = _mm256_set1_epi32(DR_HALF);
        for (int g = 0; g < plan->groups; g++, pa += step, pb += step) {
            __m256i pixels = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)pa)),
                                                     _mm_loadu_si128((const __m128i *)pb), 1);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels, first), _mm256_loadu_si256(w + g * 2)));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_shuffle_epi8(pixels, second), _mm256_loadu_si256(w + g * 2 + 1)));
        }
        sum = _mm256_srai_epi32(sum, DR_PRECISION);
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

int dr_kernel_set_for(dr_kernels which, dr_kernel_set *set) {
    static const dr_kernel_set scalar = {down_scalar, across_scalar, 0, 0};
#if DR_X86
    static const dr_kernel_set sse2 = {down_sse2, across_sse2, 0, 0};
    static const dr_kernel_set avx2 = {down_avx2, across_avx2, 1, 1};
    if (which == DR_KERNELS_BEST) {
        // DARKROOM_RESAMPLE_NO_AVX2 runs the SSE2 kernels in a whole process
        // (a fuzzing run, a comparison) on a machine that has AVX2.
        const char *no_avx2 = getenv("DARKROOM_RESAMPLE_NO_AVX2");
        which = has_avx2() && !(no_avx2 && *no_avx2) ? DR_KERNELS_AVX2 : DR_KERNELS_SSE2;
    }
    switch (which) {
    case DR_KERNELS_SCALAR: *set = scalar; return 1;
    case DR_KERNELS_SSE2: *set = sse2; return 1;
    case DR_KERNELS_AVX2:
        if (!has_avx2()) return 0;
        *set = avx2;
        return 1;
    default: return 0;
    }
#else
    if (which != DR_KERNELS_BEST && which != DR_KERNELS_SCALAR) return 0;
    *set = scalar;
    return 1;
#endif
}
