// cairo for PDF output. cairo's API has no variadic functions or macros that
// Darkroom needs, so this header only gathers the includes.
#ifndef DARKROOM_CCAIRO_SHIM_H
#define DARKROOM_CCAIRO_SHIM_H

#include <cairo.h>
#include <cairo-pdf.h>

#endif
