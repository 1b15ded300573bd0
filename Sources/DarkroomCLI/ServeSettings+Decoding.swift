import ArgumentParser
import Darkroom
import DarkroomServer
import Foundation
import HTTPTypes

/// `serve`'s settings: what a source may be, what is drawn and how, and the limits that hold every decode. Each reads its flag,
/// else its variable, into the configuration.
extension ServeSettings {
    static let decoding: [ServeSetting] = [
        ServeSetting("max-source-bytes", "Largest source, in bytes.", "DARKROOM_MAX_SOURCE_BYTES", range: 1...Int.max) { i, c in
            if let bytes = try i.number(i.maxSourceBytes, "max-source-bytes") { c.limits.maxSourceBytes = bytes }
        },
        ServeSetting("max-source-pixels", "Largest source, in pixels.", "DARKROOM_MAX_SOURCE_PIXELS", range: 1...Int.max) { i, c in
            if let pixels = try i.number(i.maxSourcePixels, "max-source-pixels") { c.limits.maxSourcePixels = pixels }
        },
        ServeSetting("max-result-dimension", "Largest width or height of a result, in pixels (default 8192).", "DARKROOM_MAX_RESULT_DIMENSION", range: 1...100_000) { i, c in
            if let side = try i.number(i.maxResultDimension, "max-result-dimension") { c.limits.maxResultDimension = side }
        },
        ServeSetting("max-processing-seconds", "Seconds one image's processing may take before it is stopped (default 20).", "DARKROOM_MAX_PROCESSING_SECONDS", range: 1...3600, imgproxy: ["TIMEOUT"]) { i, c in
            if let seconds = try i.number(i.maxProcessingSeconds, "max-processing-seconds") { c.limits.maxProcessingTime = .seconds(seconds) }
        },
        ServeSetting("pdf", "Draw PDF sources' pages (page:N picks one), each in a child process of its own under a memory and CPU limit (off by default, as libvips marks its PDF loader, poppler, untrusted).", "DARKROOM_PDF") { i, c in
            if i.pdf || i.envFlag("PDF") {
                var pages = PDFPages(command: [DrawingChild.executable, "render-pdf-page"])
                if let megabytes = try i.number(i.pdfMaxMemoryMb, "pdf-max-memory-mb") { pages.maxMemory = megabytes << 20 }
                if let text = i.pdfNoBackground ?? i.env("PDF_NO_BACKGROUND") { pages.background = try !ServeCommand.boolean(text, "--pdf-no-background") }
                c.limits.pdfPages = pages
            }
        },
        ServeSetting("pdf-max-memory-mb", "The most memory (address space) the child that draws a PDF page maps, 512 to 65536 MiB; default 1024.", "DARKROOM_PDF_MAX_MEMORY_MB", value: "MB", range: 512...65_536),
        ServeSetting("pdf-no-background", "PDF pages drawn on transparency instead of white (imgproxy Pro's IMGPROXY_PDF_NO_BACKGROUND).", "DARKROOM_PDF_NO_BACKGROUND", value: "BOOL", imgproxy: ["PDF_NO_BACKGROUND"]),
        ServeSetting("video-thumbnails", "Answer video sources (MP4, QuickTime, WebM, Matroska, AVI) by one frame, decoded by FFmpeg's libraries in a child process of its own under a memory and CPU limit (off by default, as imgproxy Pro's IMGPROXY_ENABLE_VIDEO_THUMBNAILS).", "DARKROOM_VIDEO_THUMBNAILS", imgproxy: ["ENABLE_VIDEO_THUMBNAILS"]) { i, c in
            if try i.flag(i.videoThumbnails, "VIDEO_THUMBNAILS") {
                guard BuildFeatures.video else {
                    throw ValidationError("--video-thumbnails: this build of darkroom has no video (built without the package's Video trait)")
                }
                var video = VideoThumbnails(command: [DrawingChild.executable, "render-video-frame"])
                if let megabytes = try i.number(i.videoMaxMemoryMb, "video-max-memory-mb") { video.maxMemory = megabytes << 20 }
                if let text = i.videoThumbnailSecond ?? i.env("VIDEO_THUMBNAIL_SECOND") {
                    guard let second = Double(text), second.isFinite, VideoThumbnails.seconds.contains(second) else {
                        throw ValidationError("--video-thumbnail-second '\(text)' is not a number of seconds from 0 to 86400")
                    }
                    video.second = second
                }
                if let text = i.videoThumbnailKeyframes ?? i.env("VIDEO_THUMBNAIL_KEYFRAMES") {
                    video.keyframes = try ServeCommand.boolean(text, "--video-thumbnail-keyframes")
                }
                if let bytes = try i.number(i.videoThumbnailProbeSize, "video-thumbnail-probe-size") { video.probeBytes = bytes }
                c.limits.videoThumbnails = video
            }
        },
        ServeSetting("video-thumbnail-second", "The frame's time in seconds where the URL's vts names none; default 1.", "DARKROOM_VIDEO_THUMBNAIL_SECOND", value: "SECONDS", imgproxy: ["VIDEO_THUMBNAIL_SECOND"]),
        ServeSetting("video-thumbnail-keyframes", "The keyframe at or before that time (faster), where the URL's vtk says nothing; default false.", "DARKROOM_VIDEO_THUMBNAIL_KEYFRAMES", value: "BOOL", imgproxy: ["VIDEO_THUMBNAIL_KEYFRAMES"]),
        ServeSetting("video-thumbnail-probe-size", "The most bytes read to find a video's streams, 32 to 100000000; default 5000000.", "DARKROOM_VIDEO_THUMBNAIL_PROBE_SIZE", value: "BYTES", range: 32...100_000_000, imgproxy: ["VIDEO_THUMBNAIL_PROBE_SIZE"]),
        ServeSetting("video-max-memory-mb", "The most memory (address space) the child that decodes a video frame maps, 512 to 65536 MiB; default 1024.", "DARKROOM_VIDEO_MAX_MEMORY_MB", value: "MB", range: 512...65_536),
        ServeSetting("svg-render", "Draw SVG sources into pixels with librsvg, in a sandboxed child process (on by default, as imgproxy draws them); with --no-svg-render an SVG source is answered as SVG, sanitised, and a URL asking for pixels of one is refused.", "DARKROOM_SVG_RENDER") { i, c in
            if try i.svgRender ?? i.env("SVG_RENDER").map({ try ServeCommand.boolean($0, "DARKROOM_SVG_RENDER") }) ?? true {
                c.limits.svgDrawing = DrawingChild.svg
            }
            // Large answers are written by this very program, as a child.
            c.limits.encodingChild = DrawingChild.encoder
        },
        ServeSetting("best-format-by-default", "Answer URLs that name no format in the smallest of the formats the client takes (imgproxy Pro's IMGPROXY_BEST_FORMAT_BY_DEFAULT).", "DARKROOM_BEST_FORMAT_BY_DEFAULT", imgproxy: ["BEST_FORMAT_BY_DEFAULT"]) { i, c in
            c.bestFormatByDefault = try i.flag(i.bestFormatByDefault, "BEST_FORMAT_BY_DEFAULT")
        },
        ServeSetting("object-detection-size", "The longer side, in pixels, of the copy faces are looked for in (80 to 4096); faces of about 80 pixels at that size are found. Default 3200: faces from about 2% of the photo's longer side.", "DARKROOM_OBJECT_DETECTION_SIZE", value: "PIXELS") { i, c in
            if let text = i.objectDetectionSize ?? i.env("OBJECT_DETECTION_SIZE") {
                guard let side = Int(text), ObjectDetection.sides.contains(side) else {
                    throw ValidationError("--object-detection-size '\(text)' is not a whole number of pixels from \(ObjectDetection.sides.lowerBound) to \(ObjectDetection.sides.upperBound)")
                }
                c.objectDetection.side = side
            }
        },
        ServeSetting("object-detection-confidence-threshold", "Faces found less surely than this (0 to below 1) are left out; default 0.2 (imgproxy Pro's).", "DARKROOM_OBJECT_DETECTION_CONFIDENCE_THRESHOLD", value: "NUMBER", imgproxy: ["OBJECT_DETECTION_CONFIDENCE_THRESHOLD"]) { i, c in
            if let text = i.objectDetectionConfidenceThreshold ?? i.env("OBJECT_DETECTION_CONFIDENCE_THRESHOLD") {
                guard let value = Double(text), value.isFinite, (0..<1).contains(value) else {
                    throw ValidationError("--object-detection-confidence-threshold '\(text)' is not a number from 0 to below 1")
                }
                c.objectDetection.confidenceThreshold = value
            }
        },
        ServeSetting("object-detection-gravity-mode", "How object gravity chooses: max_score_area (default), one_best or one_best_centermost.", "DARKROOM_OBJECT_DETECTION_GRAVITY_MODE", value: "MODE", imgproxy: ["OBJECT_DETECTION_GRAVITY_MODE"]) { i, c in
            if let text = i.objectDetectionGravityMode ?? i.env("OBJECT_DETECTION_GRAVITY_MODE") {
                guard let mode = ObjectDetection.GravityMode(rawValue: text) else {
                    throw ValidationError("--object-detection-gravity-mode '\(text)' is not one of \(ObjectDetection.GravityMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                c.objectDetection.gravityMode = mode
            }
        },
        ServeSetting("object-detection-fallback-to-smart-crop", "Where object gravity finds nothing: smart gravity (true, default) or the centre.", "DARKROOM_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP", value: "BOOL", imgproxy: ["OBJECT_DETECTION_FALLBACK_TO_SMART_CROP"]) { i, c in
            if let text = i.objectDetectionFallbackToSmartCrop ?? i.env("OBJECT_DETECTION_FALLBACK_TO_SMART_CROP") {
                c.objectDetection.fallbackToSmart = try ServeCommand.boolean(text, "--object-detection-fallback-to-smart-crop")
            }
        },
        ServeSetting("best-format-complexity-threshold", "Below this complexity (0 to 255) the best format tries lossless encodings; default 5.5 (imgproxy Pro's).", "DARKROOM_BEST_FORMAT_COMPLEXITY_THRESHOLD", value: "NUMBER", imgproxy: ["BEST_FORMAT_COMPLEXITY_THRESHOLD"]) { i, c in
            if let text = i.bestFormatComplexityThreshold ?? i.env("BEST_FORMAT_COMPLEXITY_THRESHOLD") {
                guard let value = Double(text), value.isFinite, (0...255).contains(value) else {
                    throw ValidationError("--best-format-complexity-threshold '\(text)' is not a number from 0 to 255")
                }
                c.bestFormatComplexityThreshold = value
            }
        },
        ServeSetting("best-format-max-resolution", "Above this many megapixels the best format writes one format without trying the others; 0: never (default).", "DARKROOM_BEST_FORMAT_MAX_RESOLUTION", value: "MEGAPIXELS", imgproxy: ["BEST_FORMAT_MAX_RESOLUTION"]) { i, c in
            if let text = i.bestFormatMaxResolution ?? i.env("BEST_FORMAT_MAX_RESOLUTION") {
                guard let megapixels = Double(text), megapixels.isFinite, (0...10_000).contains(megapixels) else {
                    throw ValidationError("--best-format-max-resolution '\(text)' is not a number of megapixels from 0 to 10000")
                }
                c.bestFormatMaxPixels = Int((megapixels * 1_000_000).rounded())
            }
        },
        ServeSetting("always-rasterize-svg", "Render SVG sources asked without a format too, instead of answering them as SVG (imgproxy's IMGPROXY_ALWAYS_RASTERIZE_SVG); needs --svg-render.", "DARKROOM_ALWAYS_RASTERIZE_SVG") { i, c in
            c.alwaysRasterizeSVG = try i.flag(i.alwaysRasterizeSVG, "ALWAYS_RASTERIZE_SVG")
            if c.alwaysRasterizeSVG, !c.limits.svgRendering {
                throw ValidationError("--always-rasterize-svg needs SVG drawing, which --no-svg-render turns off")
            }
        },
        ServeSetting("sanitize-svg", "Sanitise SVG sources before anything reads them: scripts, event handlers, foreignObject and external references removed, DTDs refused (imgproxy's IMGPROXY_SANITIZE_SVG; default true).", "DARKROOM_SANITIZE_SVG", value: "true|false", imgproxy: ["SANITIZE_SVG"]) { i, c in
            if let text = i.sanitizeSVG ?? i.env("SANITIZE_SVG") { c.limits.sanitizesSVG = try ServeCommand.boolean(text, "--sanitize-svg") }
        },
        ServeSetting("jpeg-xl", "Read JPEG XL sources and write JPEG XL answers (f:jxl); off by default, as libvips marks its JPEG XL codec untrusted.", "DARKROOM_JPEG_XL") { i, c in
            c.limits.jpegXL = i.jpegXL || i.envFlag("JPEG_XL")
        },
        ServeSetting("max-animation-frames", "Frames of an animated GIF or WebP answered, from the first (default 100; 1 answers a still image).", "DARKROOM_MAX_ANIMATION_FRAMES", range: 1...10_000, imgproxy: ["MAX_ANIMATION_FRAMES"]) { i, c in
            if let frames = try i.number(i.maxAnimationFrames, "max-animation-frames") { c.limits.maxAnimationFrames = frames }
        },
        ServeSetting("max-animation-frame-resolution", "Megapixels each frame of an animated source may have; 0: the frames together are held to --max-source-pixels (the default, as imgproxy's).", "DARKROOM_MAX_ANIMATION_FRAME_RESOLUTION", value: "MEGAPIXELS", imgproxy: ["MAX_ANIMATION_FRAME_RESOLUTION"]) { i, c in
            if let text = i.maxAnimationFrameResolution ?? i.env("MAX_ANIMATION_FRAME_RESOLUTION") {
                guard let megapixels = Double(text), megapixels.isFinite, (0...10_000).contains(megapixels) else {
                    throw ValidationError("--max-animation-frame-resolution '\(text)' is not a number of megapixels from 0 to 10000")
                }
                c.limits.maxAnimationFramePixels = megapixels > 0 ? Int((megapixels * 1_000_000).rounded()) : nil
            }
        },
        ServeSetting("skip-processing-formats", "Source formats answered as they came, where the answer may be in their format, unless a URL's skp says otherwise; comma-separated (imgproxy's IMGPROXY_SKIP_PROCESSING_FORMATS).", "DARKROOM_SKIP_PROCESSING_FORMATS", value: "FORMATS", imgproxy: ["SKIP_PROCESSING_FORMATS"]) { i, c in
            if let text = i.skipProcessingFormats ?? i.env("SKIP_PROCESSING_FORMATS") {
                for name in text.commaList(lowercased: true) {
                    // A PDF or a video is always drawn: never passed on as it came.
                    guard let format = ImageFormat(name: name), format != .pdf, format != .video else {
                        throw ValidationError("--skip-processing-formats: '\(name)' is not an image format")
                    }
                    c.encoder.skipProcessing.insert(format)
                }
            }
        },
        ServeSetting("max-jpeg-scans", "Scans a progressive JPEG may have, 1 to 10000 (default 100; encoders write at most a few dozen): libjpeg reads them all before the first row.", "DARKROOM_MAX_JPEG_SCANS", range: 1...10_000) { i, c in
            if let scans = try i.number(i.maxJPEGScans, "max-jpeg-scans") { c.limits.maxJPEGScans = scans }
        },
        ServeSetting("max-heif-tiles", "Tiles a HEIF or AVIF image's grid may have decoded, counted from the file before any decoder runs, 1 to 10000 (default 256; an iPhone's 48 MP HEIC has 192).", "DARKROOM_MAX_HEIF_TILES", range: 1...10_000) { i, c in
            if let tiles = try i.number(i.maxHEIFTiles, "max-heif-tiles") { c.limits.maxHEIFTiles = tiles }
        },
        ServeSetting("max-source-frames", "Frames an animated GIF or WebP may hold, counted from the file before any decoder runs, 1 to 1000000 (default 10000; --max-animation-frames says how many of them are answered).", "DARKROOM_MAX_SOURCE_FRAMES", range: 1...1_000_000) { i, c in
            if let frames = try i.number(i.maxSourceFrames, "max-source-frames") { c.limits.maxSourceFrames = frames }
        },
        ServeSetting("max-request-memory-mb", "Memory one request may hold, in MiB: its decode, the steps that keep it whole and the encoder, estimated before anything is allocated (default: a quarter of the cgroup's memory limit, else of the machine's memory, 64 to 512).", "DARKROOM_MAX_REQUEST_MEMORY_MB", range: 16...65_536) { i, c in
            if let megabytes = try i.number(i.maxRequestMemoryMb, "max-request-memory-mb") { c.limits.maxDecodeMemory = megabytes << 20 }
        },
    ]
}
