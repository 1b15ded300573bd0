#include "darkroom_video.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The video's bytes, read by libavformat through a custom I/O context, so
// that any container (an MP4 whose index is at its end too) can seek.
typedef struct {
    const uint8_t *data;
    size_t size;
    size_t position;
} memory_source;

static int read_packet(void *opaque, uint8_t *buffer, int wanted) {
    memory_source *source = opaque;
    size_t left = source->size - source->position;
    if (left == 0) return AVERROR_EOF;
    size_t count = (size_t)wanted < left ? (size_t)wanted : left;
    memcpy(buffer, source->data + source->position, count);
    source->position += count;
    return (int)count;
}

static int64_t seek(void *opaque, int64_t offset, int whence) {
    memory_source *source = opaque;
    if (whence & AVSEEK_SIZE) return (int64_t)source->size;
    int64_t base = 0;
    switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)source->position; break;
    case SEEK_END: base = (int64_t)source->size; break;
    default: return AVERROR(EINVAL);
    }
    int64_t target = base + offset;
    if (target < 0 || target > (int64_t)source->size) return AVERROR(EINVAL);
    source->position = (size_t)target;
    return target;
}

static int fail(char *error, int error_size, int code, const char *what, int av_code) {
    char reason[AV_ERROR_MAX_STRING_SIZE] = "";
    if (av_code < 0) av_strerror(av_code, reason, sizeof reason);
    if (error && error_size > 0) snprintf(error, (size_t)error_size, "%s%s%s", what, reason[0] ? ": " : "", reason);
    return code;
}

// Closes what open_container opened (its custom I/O too); NULL is nothing.
static void close_container(AVFormatContext **format) {
    if (!*format) return;
    AVIOContext *io = (*format)->pb;
    avformat_close_input(format);
    av_freep(&io->buffer);
    avio_context_free(&io);
}

// The demuxer for the containers Darkroom reads, named from the bytes as
// the sniff named them (ISO BMFF, Matroska and WebM, AVI); NULL for any
// other. FFmpeg is never left to probe: its probing picks among every
// demuxer it has, SDP and playlists among them, which open sockets and
// files of their own.
static const AVInputFormat *named_demuxer(const uint8_t *data, size_t size) {
    if (size >= 12 && memcmp(data + 4, "ftyp", 4) == 0) return av_find_input_format("mov");
    if (size >= 4 && memcmp(data, "\x1A\x45\xDF\xA3", 4) == 0) return av_find_input_format("matroska");
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "AVI ", 4) == 0) return av_find_input_format("avi");
    return NULL;
}

// The only demuxers a container may be read by, and no protocol at all.
static const char *const allowed_formats = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi";

// Every nested open a demuxer asks for (a reference to another file, a
// playlist's entries) is refused: the bytes in memory are all it reads.
static int refuse_open(struct AVFormatContext *s, AVIOContext **pb, const char *url, int flags, AVDictionary **options) {
    (void)s; (void)pb; (void)url; (void)flags; (void)options;
    return AVERROR(EPERM);
}

// The container opened over the bytes and its streams found, in `*out`;
// on failure nothing is left allocated. `source` outlives the context.
static int open_container(memory_source *source, long long probe_bytes, AVFormatContext **out, char *error, int error_size) {
    av_log_set_level(AV_LOG_QUIET);
    const AVInputFormat *demuxer = named_demuxer(source->data, source->size);
    if (!demuxer) return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "the container is not MP4, QuickTime, Matroska, WebM or AVI", 0);
    AVFormatContext *format = avformat_alloc_context();
    unsigned char *buffer = av_malloc(1 << 16);
    AVIOContext *io = buffer && format ? avio_alloc_context(buffer, 1 << 16, 0, source, read_packet, NULL, seek) : NULL;
    if (!io) {
        av_free(buffer);
        avformat_free_context(format);
        return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "no memory to read the video", 0);
    }
    format->pb = io;
    format->flags |= AVFMT_FLAG_CUSTOM_IO;
    format->probesize = probe_bytes;
    format->io_open = refuse_open;
    format->format_whitelist = av_strdup(allowed_formats);
    // "none" names no protocol: every protocol is refused.
    format->protocol_whitelist = av_strdup("none");
    if (!format->format_whitelist || !format->protocol_whitelist) {
        av_freep(&io->buffer);
        avio_context_free(&io);
        avformat_free_context(format);
        return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "no memory to read the video", 0);
    }
    int code = avformat_open_input(&format, NULL, demuxer, NULL);
    if (code < 0) {
        // avformat_open_input freed the context, not the custom I/O.
        av_freep(&io->buffer);
        avio_context_free(&io);
        return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "the container could not be read", code);
    }
    *out = format;
    if ((code = avformat_find_stream_info(format, NULL)) < 0) {
        close_container(out);
        return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "the streams could not be read", code);
    }
    return DARKROOM_VIDEO_OK;
}

// The frame converted to packed RGB.
static int to_rgb(const AVFrame *frame, uint8_t **rgb, char *error, int error_size) {
    struct SwsContext *scale = sws_getContext(frame->width, frame->height, frame->format, frame->width, frame->height,
                                              AV_PIX_FMT_RGB24, SWS_BILINEAR, NULL, NULL, NULL);
    if (!scale) return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "the frame's pixel format cannot be converted", 0);
    size_t stride = (size_t)frame->width * 3;
    uint8_t *pixels = malloc(stride * (size_t)frame->height);
    if (!pixels) {
        sws_freeContext(scale);
        return fail(error, error_size, DARKROOM_VIDEO_TOO_LARGE, "no memory for the frame", 0);
    }
    uint8_t *planes[4] = {pixels, NULL, NULL, NULL};
    int strides[4] = {(int)stride, 0, 0, 0};
    int rows = sws_scale(scale, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    sws_freeContext(scale);
    if (rows != frame->height) {
        free(pixels);
        return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "the frame could not be converted", 0);
    }
    *rgb = pixels;
    return DARKROOM_VIDEO_OK;
}

// Decodes the frame at `target` seconds (the keyframe at or before it with
// `keyframes`; the last frame where the video ends first) into `kept`.
// `fresh`: nothing has been decoded yet.
static int decode_at(AVFormatContext *format, AVCodecContext *decoder, AVStream *stream, int index, double target,
                     int keyframes, int fresh, AVPacket *packet, AVFrame *frame, AVFrame *kept, char *error, int error_size) {
    // In the stream's time base, held inside int64 (a stranger's time base
    // and start time may be anything).
    double ticks = target / av_q2d(stream->time_base);
    int64_t target_ts = ticks > -4.0e18 && ticks < 4.0e18 ? (int64_t)ticks : (ticks > 0 ? (int64_t)4e18 : 0);
    if (stream->start_time != AV_NOPTS_VALUE && stream->start_time > -(int64_t)4e18 && stream->start_time < (int64_t)4e18) {
        target_ts += stream->start_time;
    }
    // Every frame after the first seeks (backwards, to the keyframe at or
    // before it) and starts the decoder afresh; the first at the start
    // needs neither.
    if (!fresh) avcodec_flush_buffers(decoder);
    if (target > 0 || !fresh) {
        // A seek that fails (a file without an index) leaves the demuxer
        // where it was: for a later frame that may be past its time or at
        // the end. Then from the start, decoding forward to the time.
        if (av_seek_frame(format, index, target_ts, AVSEEK_FLAG_BACKWARD) < 0 &&
            avformat_seek_file(format, index, INT64_MIN, target_ts, target_ts, 0) < 0 && !fresh &&
            avformat_seek_file(format, -1, INT64_MIN, 0, 0, AVSEEK_FLAG_BYTE) < 0) {
            return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "the video could not be read again from an earlier frame", 0);
        }
    }
    int have = 0, draining = 0, code = 0;
    av_frame_unref(kept);
    while (1) {
        if (!draining) {
            code = av_read_frame(format, packet);
            if (code < 0) {
                draining = 1;
                avcodec_send_packet(decoder, NULL);
            } else {
                if (packet->stream_index == index) avcodec_send_packet(decoder, packet);
                av_packet_unref(packet);
            }
        }
        int stop = 0;
        while ((code = avcodec_receive_frame(decoder, frame)) == 0) {
            // The frame at the time asked: with keyframes, the first decoded
            // after the seek (the keyframe before it); else the first at or
            // past it. The last frame stands in when the video ends first.
            av_frame_unref(kept);
            av_frame_move_ref(kept, frame);
            have = 1;
            int64_t pts = kept->best_effort_timestamp;
            if (keyframes || target == 0 || pts == AV_NOPTS_VALUE || pts >= target_ts) {
                stop = 1;
                break;
            }
        }
        // Drained: nothing more will come (EAGAIN here would never end).
        if (stop || (draining && (code == AVERROR_EOF || code == AVERROR(EAGAIN)))) break;
        if (code != AVERROR(EAGAIN) && code != 0 && code != AVERROR_EOF) {
            if (!have) return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "its video could not be decoded", code);
            break;
        }
    }
    if (!have) return fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "no frame could be decoded", 0);
    return DARKROOM_VIDEO_OK;
}

int darkroom_video_frames(const uint8_t *data, size_t size, const double *seconds, int count, int keyframes, long long max_pixels,
                          long long probe_bytes, darkroom_video_meta *meta, void *context, darkroom_video_sink sink,
                          char *error, int error_size) {
    memset(meta, 0, sizeof *meta);
    memory_source source = {data, size, 0};
    AVFormatContext *format = NULL;
    int result = open_container(&source, probe_bytes, &format, error, error_size);
    if (result != DARKROOM_VIDEO_OK) return result;
    AVCodecContext *decoder = NULL;
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc(), *kept = av_frame_alloc();
    result = DARKROOM_VIDEO_UNREADABLE;
    int code = 0;
    snprintf(meta->container, sizeof meta->container, "%s", format->iformat && format->iformat->name ? format->iformat->name : "");
    const AVCodec *codec = NULL;
    int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (index < 0 || !codec) {
        result = fail(error, error_size, DARKROOM_VIDEO_NO_VIDEO, index == AVERROR_DECODER_NOT_FOUND ? "no decoder for its video" : "it has no video stream", 0);
        goto done;
    }
    AVStream *stream = format->streams[index];
    meta->width = stream->codecpar->width;
    meta->height = stream->codecpar->height;
    snprintf(meta->codec, sizeof meta->codec, "%s", codec->name);
    if (format->duration != AV_NOPTS_VALUE && format->duration > 0) {
        meta->duration = (double)format->duration / AV_TIME_BASE;
    } else if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0) {
        meta->duration = (double)stream->duration * av_q2d(stream->time_base);
    }
    if (stream->avg_frame_rate.den > 0) meta->frame_rate = av_q2d(stream->avg_frame_rate);
    if (meta->width <= 0 || meta->height <= 0) {
        result = fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "its video has no size", 0);
        goto done;
    }
    if ((long long)meta->width * meta->height > max_pixels) {
        result = fail(error, error_size, DARKROOM_VIDEO_TOO_LARGE, "its frames are larger than the pixel limit", 0);
        goto done;
    }
    if (count <= 0) {
        result = DARKROOM_VIDEO_OK;
        goto done;
    }
    decoder = avcodec_alloc_context3(codec);
    if (!decoder || avcodec_parameters_to_context(decoder, stream->codecpar) < 0) {
        result = fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "the decoder could not be set up", 0);
        goto done;
    }
    decoder->thread_count = 1;
    // A size change in the stream is refused before its frame is allocated.
    decoder->max_pixels = max_pixels;
    if ((code = avcodec_open2(decoder, codec, NULL)) < 0) {
        result = fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "the decoder could not be opened", code);
        goto done;
    }
    for (int i = 0; i < count; i++) {
        double target = seconds[i] < 0 ? 0 : seconds[i];
        if (meta->duration > 0 && target > meta->duration) target = meta->duration;
        if ((result = decode_at(format, decoder, stream, index, target, keyframes, i == 0, packet, frame, kept, error, error_size)) != DARKROOM_VIDEO_OK) {
            goto done;
        }
        if ((long long)kept->width * kept->height > max_pixels) {
            result = fail(error, error_size, DARKROOM_VIDEO_TOO_LARGE, "its frames are larger than the pixel limit", 0);
            goto done;
        }
        meta->width = kept->width;
        meta->height = kept->height;
        uint8_t *rgb = NULL;
        if ((result = to_rgb(kept, &rgb, error, error_size)) != DARKROOM_VIDEO_OK) goto done;
        int kept_going = sink(context, i, rgb, kept->width, kept->height);
        free(rgb);
        if (!kept_going) {
            result = fail(error, error_size, DARKROOM_VIDEO_UNREADABLE, "the frame could not be kept", 0);
            goto done;
        }
    }
    result = DARKROOM_VIDEO_OK;
done:
    av_frame_free(&frame);
    av_frame_free(&kept);
    av_packet_free(&packet);
    avcodec_free_context(&decoder);
    close_container(&format);
    return result;
}

int darkroom_video_describe(const uint8_t *data, size_t size, long long probe_bytes, void *context,
                            void (*tag)(void *context, const char *key, const char *value),
                            void (*stream)(void *context, const darkroom_stream_info *info),
                            char *error, int error_size) {
    memory_source source = {data, size, 0};
    AVFormatContext *format = NULL;
    int result = open_container(&source, probe_bytes, &format, error, error_size);
    if (result != DARKROOM_VIDEO_OK) return result;
    const AVDictionaryEntry *entry = NULL;
    while ((entry = av_dict_get(format->metadata, "", entry, AV_DICT_IGNORE_SUFFIX))) tag(context, entry->key, entry->value);
    for (unsigned i = 0; i < format->nb_streams; i++) {
        const AVStream *s = format->streams[i];
        const AVCodecParameters *p = s->codecpar;
        darkroom_stream_info info;
        memset(&info, 0, sizeof info);
        const char *type = av_get_media_type_string(p->codec_type);
        snprintf(info.type, sizeof info.type, "%s", type ? type : "unknown");
        snprintf(info.codec, sizeof info.codec, "%s", avcodec_get_name(p->codec_id));
        if (s->duration != AV_NOPTS_VALUE && s->duration > 0) info.duration = (double)s->duration * av_q2d(s->time_base);
        else if (format->duration != AV_NOPTS_VALUE && format->duration > 0) info.duration = (double)format->duration / AV_TIME_BASE;
        info.bps = p->bit_rate;
        if (p->codec_type == AVMEDIA_TYPE_VIDEO && s->avg_frame_rate.den > 0) info.fps = av_q2d(s->avg_frame_rate);
        if (p->codec_type == AVMEDIA_TYPE_AUDIO) {
            info.frequency = p->sample_rate;
            av_channel_layout_describe(&p->ch_layout, info.layout, sizeof info.layout);
        }
        const AVDictionaryEntry *language = av_dict_get(s->metadata, "language", NULL, 0);
        if (language) snprintf(info.language, sizeof info.language, "%s", language->value);
        stream(context, &info);
    }
    close_container(&format);
    return result;
}
