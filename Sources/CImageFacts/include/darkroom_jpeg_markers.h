// A JPEG's markers, walked without libjpeg, before either pixel engine sees
// the bytes: how many scans it has (libjpeg reads every scan of a
// multi-scan file before its first row, so their number is what such a
// file costs), what its frame asks libjpeg to hold, and where its EXIF and
// colour profile are. Linear in the file's size, and allocates nothing.
#ifndef DARKROOM_JPEG_MARKERS_H
#define DARKROOM_JPEG_MARKERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    /// The first frame (SOFn): its marker (0xC0...), precision, size and
    /// components with their sampling factors.
    int frame_marker;
    int precision;
    int width, height;
    int components;
    int h_samp[4], v_samp[4];
    /// A progressive frame (SOF2, SOF6, SOF10, SOF14).
    int progressive;
    /// Start-of-scan markers before the end of the image.
    long scans;
    /// The TIFF block of the first APP1 that begins with "Exif", as
    /// libvips takes it (NULL when there is none, or it is not followed by
    /// "\0\0"; exif_found says whether there was such an APP1 at all).
    const uint8_t *exif;
    size_t exif_length;
    int exif_found;
    /// APP2 "ICC_PROFILE" segments.
    int icc_segments;
    /// Whether the walk reached the end-of-image marker.
    int complete;
} dr_jpeg_info;

/// Walks the markers up to the end of the image; DR_DECLINED when the
/// bytes do not start as a JPEG or no frame is found before the first scan.
int dr_jpeg_inspect(const uint8_t *data, size_t length, dr_jpeg_info *info);

/// Whether libjpeg must hold the whole image's coefficients to decode it:
/// a progressive file, or a sequential one in more than one scan.
int dr_jpeg_is_multiscan(const dr_jpeg_info *info);

/// The bytes of libjpeg's whole-image coefficient buffer for a multi-scan
/// file (a 2-byte coefficient for every sample, each component padded to
/// whole MCUs); 0 for a single-scan file, which libjpeg decodes row by row.
size_t dr_jpeg_coefficient_bytes(const dr_jpeg_info *info);

/// The embedded ICC profile, put together from its APP2 segments in their
/// order: its length, copied into `out` when `out` is not NULL and
/// `capacity` is enough. 0 when there is none, or its segments do not fit
/// together.
size_t dr_jpeg_icc_profile(const uint8_t *data, size_t length, uint8_t *out, size_t capacity);

#endif
