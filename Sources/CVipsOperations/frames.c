#include "../CVips/frames.h"

int darkroom_vips_delays(VipsImage *image, int **delays) {
    int count = 0;
    if (!vips_image_get_typeof(image, "delay") || vips_image_get_array_int(image, "delay", delays, &count) != 0) {
        vips_error_clear();
        return 0;
    }
    return count;
}

int darkroom_vips_join_frames(VipsImage **frames, int count, VipsImage *timing, VipsImage **out) {
    VipsImage *joined = NULL;
    if (vips_arrayjoin(frames, &joined, count, "across", 1, NULL) != 0) {
        return -1;
    }
    // The fields set on a copy (darkroom_vips_set_frames), so that setting
    // them does not touch an image others hold.
    int *delays = NULL;
    int delay_count = darkroom_vips_delays(timing, &delays);
    int result = darkroom_vips_set_frames(joined, vips_image_get_height(frames[0]), delays, delay_count < count ? delay_count : count,
                                          darkroom_vips_loop(timing), out);
    g_object_unref(joined);
    return result;
}

int darkroom_vips_loop(VipsImage *image) {
    int loop = 0;
    if (!vips_image_get_typeof(image, "loop") || vips_image_get_int(image, "loop", &loop) != 0) {
        vips_error_clear();
        return -1;
    }
    return loop;
}

int darkroom_vips_set_frames(VipsImage *in, int page_height, const int *delays, int count, int loop, VipsImage **out) {
    int height = vips_image_get_height(in);
    if (page_height < 1 || height % page_height != 0) {
        vips_error("darkroom", "a frame height of %d does not divide the image's %d rows", page_height, height);
        return -1;
    }
    if (vips_copy(in, out, NULL) != 0) {
        return -1;
    }
    vips_image_set_int(*out, VIPS_META_PAGE_HEIGHT, page_height);
    vips_image_set_int(*out, VIPS_META_N_PAGES, height / page_height);
    if (count > 0) {
        vips_image_set_array_int(*out, "delay", delays, count);
    }
    if (loop >= 0) {
        vips_image_set_int(*out, "loop", loop);
    }
    return 0;
}

int darkroom_vips_grid(VipsImage **cells, int count, int across, VipsImage **out) {
    return vips_arrayjoin(cells, out, count, "across", across, NULL);
}

int darkroom_vips_black(int width, int height, int bands, VipsImage **out) {
    VipsImage *black = NULL;
    if (vips_black(&black, width, height, "bands", bands, NULL) != 0) return -1;
    int result = vips_cast_uchar(black, out, NULL);
    g_object_unref(black);
    return result;
}
