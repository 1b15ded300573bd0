#include "../CVips/runtime.h"

// Declared in <vips/vector.h>, which needs liborc's headers besides.
void vips_vector_set_enabled(gboolean enabled);

int darkroom_vips_start(const char *argv0) {
    if (VIPS_INIT(argv0) != 0) {
        return -1;
    }
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    // No run-time generated SIMD code (orc): under hours of load from two
    // processing threads, liborc 0.4.33 crashed twice in its own code
    // allocator. libvips has plain C for every operation it vectorises.
    vips_vector_set_enabled(FALSE);
    // Block every loader, then allow only the formats we decode.
    vips_block_untrusted_set(TRUE);
    vips_operation_block_set("VipsForeignLoad", TRUE);
    vips_operation_block_set("VipsForeignLoadJpeg", FALSE);
    vips_operation_block_set("VipsForeignLoadPng", FALSE);
    vips_operation_block_set("VipsForeignLoadWebp", FALSE);
    vips_operation_block_set("VipsForeignLoadHeif", FALSE);
    vips_operation_block_set("VipsForeignLoadTiff", FALSE);
    vips_operation_block_set("VipsForeignLoadNsgif", FALSE);
    return 0;
}

static void darkroom_vips_log_trampoline(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer sink) {
    ((darkroom_vips_log_function)sink)(domain, (int)level, message);
}

void darkroom_vips_route_log(darkroom_vips_log_function sink) {
    // Info and debug stay with GLib's default handler, which drops them
    // unless G_MESSAGES_DEBUG asks for them: no call into Swift for those.
    GLogLevelFlags levels = (GLogLevelFlags)(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE);
    g_log_set_handler("VIPS", levels, darkroom_vips_log_trampoline, (gpointer)sink);
    g_log_set_handler("GLib-GObject", levels, darkroom_vips_log_trampoline, (gpointer)sink);
}

static void darkroom_vips_on_eval(VipsImage *image, VipsProgress *progress, void *percent) {
    (void)image;
    __atomic_store_n((int *)percent, progress->percent, __ATOMIC_RELAXED);
}

void darkroom_vips_watch_progress(VipsImage *image, int *percent) {
    g_signal_connect(image, "eval", G_CALLBACK(darkroom_vips_on_eval), percent);
}

int darkroom_vips_probe_load(const void *data, size_t size, const char **loader) {
    *loader = vips_foreign_find_load_buffer(data, size);
    VipsImage *image = vips_image_new_from_buffer(data, size, "", NULL);
    if (image == NULL) {
        return -1;
    }
    g_object_unref(image);
    return 0;
}
