// Darkroom's own steps over libvips are declared in CVips' headers (one per
// concept: colour.h, frames.h, geometry.h, mark.h, metadata.h, pixels.h,
// runtime.h, text.h, info.h, draw.h, pages.h, pdf.h, filters.h), which
// Swift imports as the CVips module; this target only defines them.
// Nothing imports this header.
#ifndef DARKROOM_VIPS_OPERATIONS_H
#define DARKROOM_VIPS_OPERATIONS_H
#endif
