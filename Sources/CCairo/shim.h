// cairo for PDF output: the includes, and one helper that needs a C
// function pointer (the destructor of the JPEG bytes handed to cairo).
#ifndef DARKROOM_CCAIRO_SHIM_H
#define DARKROOM_CCAIRO_SHIM_H

#include <cairo.h>
#include <cairo-pdf.h>
#include <stdlib.h>
#include <string.h>

/// Draws a JPEG of `width` x `height` pixels into the rectangle (x, y, w, h)
/// in points. The JPEG's bytes are attached as MIME data, so the PDF embeds
/// them as they are (DCTDecode) instead of re-compressing pixels; the image
/// surface's own pixels are never read. Returns a cairo status.
static inline int darkroom_cairo_draw_jpeg(cairo_t *cr, const unsigned char *jpeg, unsigned long length,
                                           int width, int height, double x, double y, double w, double h) {
    cairo_surface_t *image = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_status_t status = cairo_surface_status(image);
    if (status != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(image);
        return (int)status;
    }
    unsigned char *copy = malloc(length);
    if (copy == NULL) {
        cairo_surface_destroy(image);
        return (int)CAIRO_STATUS_NO_MEMORY;
    }
    memcpy(copy, jpeg, length);
    status = cairo_surface_set_mime_data(image, CAIRO_MIME_TYPE_JPEG, copy, length, free, copy);
    if (status != CAIRO_STATUS_SUCCESS) {
        free(copy);
        cairo_surface_destroy(image);
        return (int)status;
    }
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, w / width, h / height);
    cairo_set_source_surface(cr, image, 0, 0);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(image);
    return (int)cairo_status(cr);
}

/// Writes a line of text centred on (x, y), in points.
static inline void darkroom_cairo_caption(cairo_t *cr, const char *text, double x, double y, double size) {
    cairo_text_extents_t extents;
    cairo_save(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    cairo_text_extents(cr, text, &extents);
    cairo_move_to(cr, x - extents.width / 2 - extents.x_bearing, y);
    cairo_set_source_rgb(cr, 0.17, 0.13, 0.09);
    cairo_show_text(cr, text);
    cairo_restore(cr);
}

#endif
