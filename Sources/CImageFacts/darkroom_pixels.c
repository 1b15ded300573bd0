#include "darkroom_pixels.h"

void dr_recombine(uint8_t *pixels, size_t count, int stride, const double matrix[9]) {
    int32_t m[9];
    for (int i = 0; i < 9; i++) {
        m[i] = (int32_t)(matrix[i] * 65536.0 + (matrix[i] >= 0 ? 0.5 : -0.5));
    }
    for (size_t i = 0; i < count; i++, pixels += stride) {
        const int32_t r = pixels[0], g = pixels[1], b = pixels[2];
        int32_t mixed[3];
        for (int c = 0; c < 3; c++) {
            mixed[c] = (m[c * 3] * r + m[c * 3 + 1] * g + m[c * 3 + 2] * b + (1 << 15)) >> 16;
        }
        for (int c = 0; c < 3; c++) {
            pixels[c] = (uint8_t)(mixed[c] < 0 ? 0 : mixed[c] > 255 ? 255 : mixed[c]);
        }
    }
}
