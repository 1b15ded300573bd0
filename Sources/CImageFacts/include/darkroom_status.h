// The status codes of Darkroom's C readers and decoders.
#ifndef DARKROOM_STATUS_H
#define DARKROOM_STATUS_H

enum {
    DR_OK = 0,
    /// Not for this path (another kind of image, a warning from the
    /// decoder, a damaged stream): let libvips try and say what is wrong.
    DR_DECLINED = 1,
    DR_CANCELLED = 2,
    /// A multi-scan JPEG with more scans than the caller allows.
    DR_TOO_MANY_SCANS = 3,
    /// More memory than the caller allows (libjpeg's max_memory_to_use).
    DR_OVER_BUDGET = 4,
};

#endif
