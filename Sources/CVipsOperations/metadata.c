#include "../CVips/metadata.h"
#include <string.h>

const char *darkroom_vips_field_string(VipsImage *image, const char *name) {
    const char *text = NULL;
    if (vips_image_get_typeof(image, name) == 0 || vips_image_get_string(image, name, &text) != 0) {
        vips_error_clear();
        return NULL;
    }
    return text;
}

int darkroom_vips_interlaced(VipsImage *image) {
    int interlaced = 0;
    if (vips_image_get_typeof(image, "interlaced") == 0 || vips_image_get_int(image, "interlaced", &interlaced) != 0) {
        vips_error_clear();
        return 0;
    }
    return interlaced;
}

int darkroom_is_file_metadata(const char *name) {
    return g_str_has_prefix(name, "exif-") || g_str_has_prefix(name, "xmp-") || g_str_has_prefix(name, "iptc-") ||
           g_str_has_prefix(name, "ipct-") || g_str_has_prefix(name, "png-comment-") ||
           strcmp(name, VIPS_META_ICC_NAME) == 0 || strcmp(name, VIPS_META_ORIENTATION) == 0;
}

const void *darkroom_vips_exif_blob(VipsImage *image, size_t *length) {
    const void *data = NULL;
    if (vips_image_get_typeof(image, VIPS_META_EXIF_NAME) == 0 ||
        vips_image_get_blob(image, VIPS_META_EXIF_NAME, &data, length) != 0) {
        vips_error_clear();
        return NULL;
    }
    return data;
}

/* A copyright kept alone is stored as libexif renders the field (the value,
 * then its description), which is what vips' savers parse back into EXIF.
 * Writer and reader share this one spelling. */
static char *copyright_field(const char *value) {
    size_t length = strlen(value);
    return g_strdup_printf("%s (Copyright, ASCII, %zu components, %zu bytes)", value, length + 1, length + 1);
}

char *darkroom_vips_kept_copyright(VipsImage *image) {
    size_t length = 0;
    if (darkroom_vips_exif_blob(image, &length) != NULL) return NULL;
    const char *field = darkroom_vips_field_string(image, "exif-ifd0-Copyright");
    if (field == NULL) return NULL;
    const char *open = g_strrstr(field, " (Copyright, ASCII, ");
    if (open == NULL) return NULL;
    char *value = g_strndup(field, (gsize)(open - field));
    char *expected = copyright_field(value);
    int same = strcmp(expected, field) == 0;
    g_free(expected);
    if (!same) {
        g_free(value);
        return NULL;
    }
    return value;
}

int darkroom_vips_keep_metadata(VipsImage *in, VipsImage **out, int keep_all, int keep_icc, const char *copyright) {
    int keep_copyright = copyright != NULL;
    if (vips_copy(in, out, NULL) != 0) {
        return -1;
    }
    gchar **fields = vips_image_get_fields(*out);
    for (int i = 0; fields[i] != NULL; i++) {
        const char *name = fields[i];
        if (!darkroom_is_file_metadata(name)) continue;
        int icc = strcmp(name, VIPS_META_ICC_NAME) == 0;
        int keep = icc ? keep_icc : (keep_all || (keep_copyright && strcmp(name, "exif-ifd0-Copyright") == 0));
        if (!keep) {
            vips_image_remove(*out, name);
        }
    }
    g_strfreev(fields);
    if (keep_copyright && !keep_all) {
        char *field = copyright_field(copyright);
        vips_image_set_string(*out, "exif-ifd0-Copyright", field);
        g_free(field);
    }
    return 0;
}

int darkroom_vips_set_resolution(VipsImage *in, VipsImage **out, double pixels_per_mm) {
    return vips_copy(in, out, "xres", pixels_per_mm, "yres", pixels_per_mm, NULL);
}

int darkroom_vips_icc_transform(VipsImage *in, VipsImage **out, const char *profile) {
    return vips_icc_transform(in, out, profile, "embedded", TRUE, "input_profile", "srgb",
                              "intent", VIPS_INTENT_RELATIVE, "depth", 8, NULL);
}

int darkroom_vips_with_string(VipsImage *in, VipsImage **out, const char *name, const char *value) {
    if (vips_copy(in, out, NULL) != 0) return -1;
    vips_image_set_string(*out, name, value);
    return 0;
}
