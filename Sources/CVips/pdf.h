#ifndef DARKROOM_CVIPS_PDF_H
#define DARKROOM_CVIPS_PDF_H

// PDF pages through libvips' poppler loader, which libvips marks untrusted.
// Only the child process that draws one page (`darkroom render-pdf-page`)
// unblocks it: poppler's work on a hostile file cannot be bounded in the
// server's own process.

#include <vips/vips.h>

/// `pages` pages from `page` (from 0) of the PDF in memory, stacked top to
/// bottom, drawn at `scale` times 72 pixels an inch, as RGBA on white, or
/// on transparency.
static inline int darkroom_vips_pdfload(const void *buf, size_t len, VipsImage **out, int page, int pages, double scale, int transparent) {
    double colour[4] = {255, 255, 255, transparent ? 0 : 255};
    VipsArrayDouble *background = vips_array_double_new(colour, 4);
    int result = vips_pdfload_buffer((void *)buf, len, out, "page", page, "n", pages, "scale", scale,
                                     "background", background, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/// The document's page count as the loader read it (libvips' own getter
/// answers 1 past 10,000).
int darkroom_vips_pdf_pages(VipsImage *image);

/// Unblocks the PDF loader from memory, for the process that draws pages.
static inline void darkroom_vips_allow_pdf(void) {
    vips_operation_block_set("VipsForeignLoadPdfBuffer", FALSE);
}

/// `in` flattened onto white (its alpha dropped).
static inline int darkroom_vips_flatten_white(VipsImage *in, VipsImage **out) {
    double white[3] = {255, 255, 255};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

#endif
