#ifndef DARKROOM_CVIPS_TEXT_H
#define DARKROOM_CVIPS_TEXT_H

// Text watermarks are Pango markup, which libvips draws (vips_text). What
// a stranger's markup may do is checked here first, with Pango itself:
// that it parses, which font families it names, and how large it lays
// out, so that nothing is drawn that would be refused.

#include <vips/vips.h>
#include <pango/pangocairo.h>
#include <string.h>
#include <math.h>

/// A font map for the checks (libvips keeps its own for drawing). Pango's
/// maps are not safe across threads: the caller holds a lock around
/// every use.
static inline void *darkroom_text_fontmap_new(void) {
    return pango_cairo_font_map_new();
}

/// What a markup's attributes ask of the font, in points (Pango's units
/// over PANGO_SCALE; absolute sizes are pixels, read as points at 72 dpi):
/// the largest size, scale, letter spacing, rise and line height set.
typedef struct {
    double size;
    double scale;
    double spacing;
    double rise;
    double line_height;
    double absolute_line_height;
} darkroom_markup_metrics;

/// NULL when `markup` parses; else Pango's reason (g_free it). `families`
/// gets every family the markup names, one a line (g_free it), and
/// `metrics` what its attributes ask. Nothing here lays text out: sizes
/// are checked before any font is made at them.
char *darkroom_markup_check(const char *markup, char **families, darkroom_markup_metrics *metrics);

/// The size `markup` lays out at in `font`, wrapped at `width` pixels, at
/// `dpi`: ink and logical extents together, as libvips sizes its image.
void darkroom_markup_extents(void *map, const char *markup, const char *font, int width, int dpi,
                             int *out_width, int *out_height);

/// The installed font families, one a line (g_free it).
char *darkroom_font_families(void *map);

/// `markup` drawn in colour (black unless it says otherwise) on
/// transparency, in `font`, wrapped at `width`, at `dpi`: RGBA.
int darkroom_vips_markup(const char *markup, const char *font, int width, int dpi, VipsImage **out);

#endif
