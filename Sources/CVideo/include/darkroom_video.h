#ifndef DARKROOM_VIDEO_H
#define DARKROOM_VIDEO_H

// One frame of a video in memory, through FFmpeg's libraries (libavformat
// to read the container, libavcodec to decode, libswscale to convert to
// 8-bit RGB). Run only in the child process that draws video frames.

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int width;
    int height;
    /// Seconds; 0 where the container does not say.
    double duration;
    /// Frames a second; 0 where unknown.
    double frame_rate;
    char codec[32];
    char container[64];
} darkroom_video_meta;

enum {
    DARKROOM_VIDEO_OK = 0,
    DARKROOM_VIDEO_UNREADABLE = -1,
    DARKROOM_VIDEO_NO_VIDEO = -2,
    DARKROOM_VIDEO_TOO_LARGE = -3,
};

/// Where darkroom_video_frames hands each frame: its index among the
/// times asked and its packed RGB pixels, which the sink copies (they are
/// freed after it returns). Returns 0 to stop.
typedef int (*darkroom_video_sink)(void *context, int index, const uint8_t *rgb, int width, int height);

/// Reads the video's streams (at most `probe_bytes` to find them) and its
/// first video stream's size, codec and duration into `meta`; then, for
/// each of the `count` times in `seconds` (each clamped to the duration;
/// with `keyframes`, the keyframe at or before it), decodes that frame,
/// one at a time, and hands it to `sink` as RGB. A frame of more than
/// `max_pixels` is refused before any frame is decoded. Returns one of the
/// DARKROOM_VIDEO_ codes, the reason in `error`.
int darkroom_video_frames(const uint8_t *data, size_t size, const double *seconds, int count, int keyframes, long long max_pixels,
                          long long probe_bytes, darkroom_video_meta *meta, void *context, darkroom_video_sink sink,
                          char *error, int error_size);

/// One stream of the container, as imgproxy Pro's `video_streams` lists it.
typedef struct {
    /// "video", "audio", "subtitle", "data", "attachment".
    char type[16];
    char codec[32];
    /// Seconds; 0 where unknown.
    double duration;
    /// Bits a second; 0 where unknown.
    long long bps;
    /// Video: frames a second; 0 where unknown.
    double fps;
    /// Audio: samples a second and channel layout.
    int frequency;
    char layout[64];
    char language[16];
} darkroom_stream_info;

/// Reads the container's tags and its streams (at most `probe_bytes` to
/// find them), calling `tag` for each tag and `stream` for each stream.
/// Decodes nothing. Returns a DARKROOM_VIDEO_ code, the reason in `error`.
int darkroom_video_describe(const uint8_t *data, size_t size, long long probe_bytes, void *context,
                            void (*tag)(void *context, const char *key, const char *value),
                            void (*stream)(void *context, const darkroom_stream_info *info),
                            char *error, int error_size);

#endif
