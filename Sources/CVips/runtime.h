#ifndef DARKROOM_CVIPS_RUNTIME_H
#define DARKROOM_CVIPS_RUNTIME_H

// libvips started with the settings an image server needs, its warnings
// routed to the caller, progress watched for cancellation, and its own
// format detection tried.
// Defined in Sources/CVipsOperations/runtime.c.

#include <vips/vips.h>

/// Where libvips' (and libjpeg's, libpng's...) warnings go: a function of
/// the caller's, never the terminal.
typedef void (*darkroom_vips_log_function)(const char *domain, int level, const char *message);

/// Starts libvips once, with the settings an image server needs:
/// no operation cache (each request is new work, and the cache holds
/// references to input buffers), one worker thread per call (our queues do
/// the parallel work), and only the loaders we trust.
int darkroom_vips_start(const char *argv0);

/// Sends libvips' and GObject's warnings (not info or debug) to `sink`.
void darkroom_vips_route_log(darkroom_vips_log_function sink);

/// Records how far the evaluation of `image` has got, in percent of its
/// pixels, into `*percent` (which must outlive the image's evaluation) as
/// libvips reports it.
void darkroom_vips_watch_progress(VipsImage *image, int *percent);

/// Tries libvips' own format detection and loader on these bytes (header
/// only). Returns 0 and the loader's class name when it would load them, or
/// -1 when it would not (unknown format, or its loader is blocked).
int darkroom_vips_probe_load(const void *data, size_t size, const char **loader);

#endif
