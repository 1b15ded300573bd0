import ArgumentParser
import Darkroom
import DarkroomServer
import Foundation
import HTTPTypes

/// `serve`'s settings: how answers are written, and the imgproxy settings of the same name. Each reads its flag,
/// else its variable, into the configuration.
extension ServeSettings {
    static let output: [ServeSetting] = [
        ServeSetting("quality", "Quality of lossy answers a URL's q does not set, 1 to 100 (default 80).", "DARKROOM_QUALITY", imgproxy: ["QUALITY"]) { i, c in
            if let text = i.quality.map(String.init) ?? i.env("QUALITY") {
                guard let value = Int(text), (1...100).contains(value) else { throw ValidationError("quality \(text): expected 1 to 100") }
                c.encoder.quality = value
            }
        },
        ServeSetting("format-quality", "Quality per output format, over --quality (default webp=79,avif=63,jxl=77, as imgproxy).", "DARKROOM_FORMAT_QUALITY", value: "FORMAT=Q,...", imgproxy: ["FORMAT_QUALITY"]) { i, c in
            if let text = i.formatQuality ?? i.env("FORMAT_QUALITY") {
                for pair in text.split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard parts.count == 2, let format = ImageFormat(name: parts[0]), format.canEncode, let value = Int(parts[1]), (1...100).contains(value) else {
                        throw ValidationError("format quality \(pair): expected FORMAT=1...100, such as avif=60")
                    }
                    c.encoder.formatQuality[format] = value
                }
            }
        },
        ServeSetting("jpeg-progressive", "Write progressive JPEG answers.", "DARKROOM_JPEG_PROGRESSIVE", imgproxy: ["JPEG_PROGRESSIVE"]) { i, c in
            c.encoder.progressiveJPEG = i.jpegProgressive || i.envFlag("JPEG_PROGRESSIVE")
        },
        ServeSetting("autoquality", "Autoquality, as imgproxy Pro's: size (the highest quality whose file fits TARGET bytes) or dssim (the lowest whose structural dissimilarity is at most TARGET, 0.02 by default, within ALLOWED_ERROR), over qualities MIN to MAX (70 to 80); off by default; a URL's aq overrides it.", "DARKROOM_AUTOQUALITY_METHOD, DARKROOM_AUTOQUALITY_TARGET, DARKROOM_AUTOQUALITY_MIN, DARKROOM_AUTOQUALITY_MAX, DARKROOM_AUTOQUALITY_ALLOWED_ERROR", value: "METHOD[:TARGET:MIN:MAX:ALLOWED_ERROR]", imgproxy: ["AUTOQUALITY_METHOD", "AUTOQUALITY_TARGET", "AUTOQUALITY_MIN", "AUTOQUALITY_MAX", "AUTOQUALITY_ALLOWED_ERROR"]) { i, c in
            c.encoder.autoquality = try i.command.autoqualitySetting(env: i.env)
        },
        ServeSetting("autoquality-format-min", "Per-format lowest qualities for autoquality, as avif=60,webp=70.", "DARKROOM_AUTOQUALITY_FORMAT_MIN", value: "FORMAT=QUALITY,...", imgproxy: ["AUTOQUALITY_FORMAT_MIN"]),
        ServeSetting("autoquality-format-max", "Per-format highest qualities for autoquality, as avif=65.", "DARKROOM_AUTOQUALITY_FORMAT_MAX", value: "FORMAT=QUALITY,...", imgproxy: ["AUTOQUALITY_FORMAT_MAX"]),
        ServeSetting("unsharp-masking", "Unsharp masking after a resize, as imgproxy Pro's: none (the default, as imgproxy's open-source edition), auto (after a resize that made the image smaller, unless sharpen is set) or always, with a weight (default 1) and a divider (default 24); a URL's ush overrides it.", "DARKROOM_UNSHARP_MASKING_MODE, DARKROOM_UNSHARP_MASKING_WEIGHT, DARKROOM_UNSHARP_MASKING_DIVIDER", value: "MODE[:WEIGHT:DIVIDER]", imgproxy: ["UNSHARP_MASKING_MODE", "UNSHARP_MASKING_WEIGHT", "UNSHARP_MASKING_DIVIDER"]) { i, c in
            c.encoder.unsharpMasking = try i.command.unsharpMaskingSetting(env: i.env)
        },
        ServeSetting("preserve-hdr", "Keep 16 bits of a source that has more than 8 where the answer is PNG, TIFF, AVIF (12-bit) or JPEG XL and its steps are resizes, crops, turns, blur or sharpen (imgproxy's IMGPROXY_PRESERVE_HDR; a URL's ph overrides it).", "DARKROOM_PRESERVE_HDR", imgproxy: ["PRESERVE_HDR"]) { i, c in
            c.encoder.preserveHDR = try i.flag(i.preserveHdr, "PRESERVE_HDR")
        },
        ServeSetting("encoder", "An encoder setting by imgproxy's name, repeatable: png_interlaced, png_quantize, png_quantization_colors (\(StepRanges.text(EncoderSettings.pngQuantizationColourRange))), webp_effort (\(StepRanges.text(EncoderSettings.webpEffortRange)), default \(EncoderSettings().webpEffort)), webp_preset, webp_compression (lossy, near_lossless, lossless), webp_smart_subsample, avif_speed (\(StepRanges.text(EncoderSettings.avifSpeedRange)), default \(EncoderSettings().avifSpeed)), avif_subsample (auto, on, off), jxl_effort (\(StepRanges.text(EncoderSettings.jxlEffortRange)), default \(EncoderSettings().jxlEffort)), jpeg_no_subsample, jpeg_trellis_quant, jpeg_overshoot_deringing, jpeg_optimize_scans, jpeg_quant_table (\(StepRanges.text(EncoderSettings.jpegQuantTables))).", "DARKROOM_PNG_INTERLACED, DARKROOM_WEBP_EFFORT, ... each by its name", value: "NAME=VALUE") { i, c in
            c.encoder.settings = try i.command.encoderSettings(env: i.env)
        },
        ServeSetting("allow-security-options", "Let URLs carry imgproxy's security options (max_src_resolution, max_src_file_size, max_animation_frames, max_animation_frame_resolution, max_result_dimension).", "DARKROOM_ALLOW_SECURITY_OPTIONS", imgproxy: ["ALLOW_SECURITY_OPTIONS"]) { i, c in
            c.allowSecurityOptions = i.allowSecurityOptions || i.envFlag("ALLOW_SECURITY_OPTIONS")
        },
        ServeSetting("base-url", "Put before every source that does not start with it (imgproxy's BASE_URL).", "DARKROOM_BASE_URL", value: "URL", imgproxy: ["BASE_URL"]) { i, c in
            if let base = i.baseURL ?? i.env("BASE_URL") { c.sourceRules.baseURL = base }
        },
        ServeSetting("source-url-encryption-key", "The AES key, in hex (16, 24 or 32 bytes), that /enc/ sources are encrypted with (imgproxy Pro's IMGPROXY_SOURCE_URL_ENCRYPTION_KEY); needs --key and --salt, as unsigned tokens would let a client probe the encryption.", "DARKROOM_SOURCE_URL_ENCRYPTION_KEY", value: "HEX", imgproxy: ["SOURCE_URL_ENCRYPTION_KEY"]) { i, c in
            if let hex = i.sourceUrlEncryptionKey ?? i.env("SOURCE_URL_ENCRYPTION_KEY") {
                guard let bytes = URLSignature.bytes(hex: hex), [16, 24, 32].contains(bytes.count) else {
                    throw ValidationError("--source-url-encryption-key: expected 16, 24 or 32 bytes in hex (AES-128, -192 or -256)")
                }
                // Unsigned, any client could send tokens of its own making and
                // read the key's padding from the answers.
                guard !c.signatures.isEmpty else {
                    throw ValidationError("--source-url-encryption-key needs signed URLs (--key and --salt): unsigned, a client can probe the encryption with tokens of its own")
                }
                c.sourceRules.encryptionKey = bytes
            }
        },
        ServeSetting("secret", "Image and info requests must carry Authorization: Bearer SECRET, or are refused with 403 (imgproxy's IMGPROXY_SECRET).", "DARKROOM_SECRET", value: "SECRET", imgproxy: ["SECRET"]) { i, c in
            if let secret = i.secret ?? i.env("SECRET") { c.secret = ServerSecret(secret) }
        },
        ServeSetting("url-replacements", "Source rewrites, as imgproxy's URL_REPLACEMENTS: PATTERN=REPLACEMENT;... (* within a segment, $1... in the replacement).", "DARKROOM_URL_REPLACEMENTS", value: "RULES", imgproxy: ["URL_REPLACEMENTS"]) { i, c in
            if let rules = i.urlReplacements ?? i.env("URL_REPLACEMENTS") {
                do {
                    c.sourceRules.replacements = try SourceRules.replacements(from: rules)
                } catch {
                    throw ValidationError("URL replacements: \(error)")
                }
            }
        },
        ServeSetting("preferred-formats", "Where neither the URL nor Accept chooses the format, imgproxy's rule: the source's format when listed, else the first listed that can hold the answer (one that animates for an animation, one with alpha for alpha), comma-separated, e.g. jpeg,png,gif (imgproxy's default). Unset: the source's format where the client takes it, else JPEG, or PNG for alpha.", "DARKROOM_PREFERRED_FORMATS", value: "FORMATS", imgproxy: ["PREFERRED_FORMATS"]) { i, c in
            if let text = i.preferredFormats ?? i.env("PREFERRED_FORMATS") {
                c.preferredFormats = try ServeCommand.preferredFormats(text, jpegXL: c.limits.jpegXL)
            }
        },
        ServeSetting("debug-headers", "Image answers carry X-Origin-Content-Length, X-Origin-Width, X-Origin-Height, X-Result-Width and X-Result-Height, as imgproxy's debug headers.", "DARKROOM_DEBUG_HEADERS", imgproxy: ["ENABLE_DEBUG_HEADERS"]) { i, c in
            c.debugHeaders = try i.flag(i.debugHeaders, "DEBUG_HEADERS")
        },
        ServeSetting("canonical-header", "Answers of http and https sources carry Link: <source>; rel=\"canonical\" (never for encrypted sources).", "DARKROOM_CANONICAL_HEADER", imgproxy: ["SET_CANONICAL_HEADER"]) { i, c in
            c.canonicalHeader = try i.flag(i.canonicalHeader, "CANONICAL_HEADER")
        },
        ServeSetting("return-attachment", "Answers are attachments (Content-Disposition: attachment) unless a URL's att:0 says otherwise.", "DARKROOM_RETURN_ATTACHMENT", imgproxy: ["RETURN_ATTACHMENT"]) { i, c in
            c.returnAttachment = try i.flag(i.returnAttachment, "RETURN_ATTACHMENT")
        },
        ServeSetting("enforce-thumbnail", "HEIC and AVIF sources with an embedded thumbnail are read by it, unless a URL's eth:0 says otherwise.", "DARKROOM_ENFORCE_THUMBNAIL", imgproxy: ["ENFORCE_THUMBNAIL"]) { i, c in
            c.enforceThumbnail = try i.flag(i.enforceThumbnail, "ENFORCE_THUMBNAIL")
        },
        ServeSetting(nil, "The URL replacements and the base URL apply to wmu (watermark URLs) too, as sources' (true or false).", "DARKROOM_WATERMARK_PREPROCESS_URL", imgproxy: ["WATERMARK_PREPROCESS_URL"]) { i, c in
            c.sourceRules.rewritesWatermarkURLs = try i.flag(false, "WATERMARK_PREPROCESS_URL")
        },
        ServeSetting(nil, "The URL replacements and the base URL apply to fiu (fallback image URLs) too, as sources' (true or false).", "DARKROOM_FALLBACK_IMAGE_PREPROCESS_URL", imgproxy: ["FALLBACK_IMAGE_PREPROCESS_URL"]) { i, c in
            c.sourceRules.rewritesFallbackURLs = try i.flag(false, "FALLBACK_IMAGE_PREPROCESS_URL")
        },
        ServeSetting(nil, "The watermark image itself, base64-encoded, checked to be an image at start.", "DARKROOM_WATERMARK_DATA", imgproxy: ["WATERMARK_DATA"]) { i, c in
            if let text = i.env("WATERMARK_DATA") { c.watermark = WatermarkImage(data: try ServeCommand.imageData(base64: text, name: "DARKROOM_WATERMARK_DATA")) }
        },
        ServeSetting(nil, "The fallback image itself, base64-encoded, checked to be an image at start.", "DARKROOM_FALLBACK_IMAGE_DATA", imgproxy: ["FALLBACK_IMAGE_DATA"]) { i, c in
            if let text = i.env("FALLBACK_IMAGE_DATA") { c.fallbackImage = try ServeCommand.imageData(base64: text, name: "DARKROOM_FALLBACK_IMAGE_DATA") }
        },
        ServeSetting(nil, "The only URL options allowed, comma-separated (presets may name any).", "DARKROOM_ALLOWED_PROCESSING_OPTIONS", imgproxy: ["ALLOWED_PROCESSING_OPTIONS"]) { i, c in
            if let text = i.env("ALLOWED_PROCESSING_OPTIONS") {
                c.allowedOptions = Set(text.commaList())
            }
        },
        ServeSetting(nil, "The only info options /info URLs may name, comma-separated (presets may name any).", "DARKROOM_ALLOWED_INFO_OPTIONS", imgproxy: ["ALLOWED_INFO_OPTIONS"]) { i, c in
            if let text = i.env("ALLOWED_INFO_OPTIONS") {
                c.allowedInfoOptions = Set(text.commaList())
            }
        },
        ServeSetting(nil, "The last segment of a base64 or encrypted source is a file name for the page's sake, not part of the source (true or false).", "DARKROOM_BASE64_URL_INCLUDES_FILENAME", imgproxy: ["BASE64_URL_INCLUDES_FILENAME"]) { i, c in
            c.sourceRules.base64IncludesFilename = i.envFlag("BASE64_URL_INCLUDES_FILENAME")
        },
        ServeSetting(nil, "The S3 store's region, where set apart from the credentials' AWS_REGION.", "DARKROOM_S3_REGION", imgproxy: ["S3_REGION"]),
        ServeSetting(nil, "Answer URLs that name no format in WebP, AVIF or JPEG XL where the client's Accept names it (true or false; unset: AVIF and WebP).", "DARKROOM_AUTO_WEBP, DARKROOM_AUTO_AVIF, DARKROOM_AUTO_JXL", imgproxy: ["AUTO_WEBP", "AUTO_AVIF", "AUTO_JXL"]) { i, c in
            c.negotiation = try i.command.negotiation(env: i.env, jpegXL: c.limits.jpegXL)
        },
        ServeSetting(nil, "Answer in WebP, AVIF or JPEG XL where the client's Accept names it, even a URL that names another format.", "DARKROOM_ENFORCE_WEBP, DARKROOM_ENFORCE_AVIF, DARKROOM_ENFORCE_JXL", imgproxy: ["ENFORCE_WEBP", "ENFORCE_AVIF", "ENFORCE_JXL"]),
    ]
}
