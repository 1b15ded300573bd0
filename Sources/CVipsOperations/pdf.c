#include "../CVips/pdf.h"

int darkroom_vips_pdf_pages(VipsImage *image) {
    int pages = 1;
    if (vips_image_get_typeof(image, "n-pages") != 0 && vips_image_get_int(image, "n-pages", &pages) != 0) pages = 1;
    return pages;
}
