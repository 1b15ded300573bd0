import ArgumentParser
import Darkroom
import DarkroomServer

/// How `serve` reads the settings that shape answers the way an imgproxy
/// deployment expects: the preferred formats, debug and canonical fields,
/// attachments, rewritten watermark and fallback URLs, denied buckets.
extension ServeCommand {
    func readAnswerSettings(into c: inout ServerConfiguration, env: (String) -> String?) throws {
        func flag(_ given: Bool, _ name: String) throws -> Bool {
            try given || env(name).map { try Self.boolean($0, "DARKROOM_\(name)") } ?? false
        }
        if let text = preferredFormats ?? env("PREFERRED_FORMATS") {
            c.preferredFormats = try Self.preferredFormats(text, jpegXL: c.limits.jpegXL)
        }
        c.debugHeaders = try flag(debugHeaders, "DEBUG_HEADERS")
        c.canonicalHeader = try flag(canonicalHeader, "CANONICAL_HEADER")
        c.returnAttachment = try flag(returnAttachment, "RETURN_ATTACHMENT")
        c.enforceThumbnail = try flag(enforceThumbnail, "ENFORCE_THUMBNAIL")
        c.sourceRules.rewritesWatermarkURLs = try flag(false, "WATERMARK_PREPROCESS_URL")
        c.sourceRules.rewritesFallbackURLs = try flag(false, "FALLBACK_IMAGE_PREPROCESS_URL")
        if let text = s3DeniedBuckets ?? env("S3_DENIED_BUCKETS") {
            guard c.s3Sources != nil else { throw ValidationError("--s3-denied-buckets needs --s3-sources") }
            let buckets = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            for bucket in buckets where !S3Location.isBucketName(bucket) {
                throw ValidationError("--s3-denied-buckets: \"\(bucket)\" is not a bucket name (3 to 63 of a-z, 0-9, '.', '-')")
            }
            c.s3Sources?.deniedBuckets = buckets
        }
    }

    /// A comma-separated list of formats Darkroom writes, in order, as
    /// imgproxy's `IMGPROXY_PREFERRED_FORMATS` (`jpeg,png,gif`).
    static func preferredFormats(_ text: String, jpegXL: Bool) throws -> [ImageFormat] {
        var formats: [ImageFormat] = []
        for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let format = ImageFormat(name: name), format.canEncode else {
                throw ValidationError("--preferred-formats: \"\(name.prefix(20))\" is not a format Darkroom writes (\(ImageFormat.encodable.map(\.rawValue).joined(separator: ", ")))")
            }
            guard format != .jxl || jpegXL else { throw ValidationError("--preferred-formats: jxl needs --jpeg-xl (libvips marks its JPEG XL codec untrusted)") }
            if !formats.contains(format) { formats.append(format) }
        }
        guard !formats.isEmpty else { throw ValidationError("--preferred-formats: name at least one format, such as jpeg,png,gif") }
        return formats
    }
}
