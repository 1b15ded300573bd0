#include "../CVips/text.h"
#include <string.h>

char *darkroom_markup_check(const char *markup, char **families, darkroom_markup_metrics *metrics) {
    PangoAttrList *attributes = NULL;
    GError *error = NULL;
    *families = NULL;
    memset(metrics, 0, sizeof(*metrics));
    if (!pango_parse_markup(markup, -1, 0, &attributes, NULL, NULL, &error)) {
        char *reason = g_strdup(error ? error->message : "the markup does not parse");
        if (error) g_error_free(error);
        return reason;
    }
    GString *names = g_string_new(NULL);
    GSList *all = pango_attr_list_get_attributes(attributes);
    for (GSList *item = all; item != NULL; item = item->next) {
        PangoAttribute *attribute = item->data;
        const char *family = NULL;
        switch (attribute->klass->type) {
        case PANGO_ATTR_FAMILY:
            family = ((PangoAttrString *) attribute)->value;
            break;
        case PANGO_ATTR_FONT_DESC: {
            PangoFontDescription *description = ((PangoAttrFontDesc *) attribute)->desc;
            family = pango_font_description_get_family(description);
            if (pango_font_description_get_set_fields(description) & PANGO_FONT_MASK_SIZE) {
                metrics->size = MAX(metrics->size, (double) pango_font_description_get_size(description) / PANGO_SCALE);
            }
            break;
        }
        case PANGO_ATTR_SIZE:
        case PANGO_ATTR_ABSOLUTE_SIZE:
            metrics->size = MAX(metrics->size, (double) ((PangoAttrSize *) attribute)->size / PANGO_SCALE);
            break;
        case PANGO_ATTR_SCALE:
            metrics->scale = MAX(metrics->scale, ((PangoAttrFloat *) attribute)->value);
            break;
        case PANGO_ATTR_LETTER_SPACING:
            metrics->spacing = MAX(metrics->spacing, fabs((double) ((PangoAttrInt *) attribute)->value / PANGO_SCALE));
            break;
        case PANGO_ATTR_RISE:
            metrics->rise = MAX(metrics->rise, fabs((double) ((PangoAttrInt *) attribute)->value / PANGO_SCALE));
            break;
        case PANGO_ATTR_LINE_HEIGHT:
            metrics->line_height = MAX(metrics->line_height, ((PangoAttrFloat *) attribute)->value);
            break;
        case PANGO_ATTR_ABSOLUTE_LINE_HEIGHT:
            metrics->absolute_line_height = MAX(metrics->absolute_line_height, (double) ((PangoAttrInt *) attribute)->value / PANGO_SCALE);
            break;
        default:
            break;
        }
        if (family != NULL) {
            g_string_append(names, family);
            g_string_append_c(names, '\n');
        }
        pango_attribute_destroy(attribute);
    }
    g_slist_free(all);
    pango_attr_list_unref(attributes);
    *families = g_string_free(names, FALSE);
    return NULL;
}

void darkroom_markup_extents(void *map, const char *markup, const char *font, int width, int dpi,
                             int *out_width, int *out_height) {
    PangoContext *context = pango_font_map_create_context(PANGO_FONT_MAP(map));
    pango_cairo_context_set_resolution(context, dpi);
    PangoLayout *layout = pango_layout_new(context);
    PangoFontDescription *description = pango_font_description_from_string(font);
    pango_layout_set_font_description(layout, description);
    pango_layout_set_markup(layout, markup, -1);
    if (width > 0) {
        pango_layout_set_width(layout, width * PANGO_SCALE);
    }
    PangoRectangle ink, logical;
    pango_layout_get_pixel_extents(layout, &ink, &logical);
    int left = MIN(ink.x, logical.x), top = MIN(ink.y, logical.y);
    int right = MAX(ink.x + ink.width, logical.x + logical.width);
    int bottom = MAX(ink.y + ink.height, logical.y + logical.height);
    *out_width = right - left;
    *out_height = bottom - top;
    pango_font_description_free(description);
    g_object_unref(layout);
    g_object_unref(context);
}

char *darkroom_font_families(void *map) {
    PangoFontFamily **families = NULL;
    int count = 0;
    pango_font_map_list_families(PANGO_FONT_MAP(map), &families, &count);
    GString *names = g_string_new(NULL);
    for (int i = 0; i < count; i++) {
        g_string_append(names, pango_font_family_get_name(families[i]));
        g_string_append_c(names, '\n');
    }
    g_free(families);
    return g_string_free(names, FALSE);
}

int darkroom_vips_markup(const char *markup, const char *font, int width, int dpi, VipsImage **out) {
    return vips_text(out, markup, "font", font, "width", width, "dpi", dpi, "rgba", TRUE, NULL);
}
