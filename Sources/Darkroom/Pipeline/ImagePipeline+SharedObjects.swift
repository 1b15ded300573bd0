import Foundation

// How processed images and sources are kept in the shared result cache:
// the bytes as the object, and what the answer needs besides (size,
// formats, the source's validators that the ETag is made from) as S3 user
// metadata.

extension ImageResponse {
    init?(sharedObject object: S3Client.Object, key: String) {
        let m = object.metadata
        guard let format = m["format"].flatMap(ImageFormat.init(rawValue:)),
              let width = m["width"].flatMap(Int.init), let height = m["height"].flatMap(Int.init),
              let sourceFormat = m["source-format"].flatMap(ImageFormat.init(rawValue:)),
              let sourceWidth = m["source-width"].flatMap(Int.init), let sourceHeight = m["source-height"].flatMap(Int.init),
              ImageFormat.sniff(object.data) == .image(format)
        else { return nil }
        let image = ProcessedImage(data: object.data, format: format, width: width, height: height,
                                   source: .init(format: sourceFormat, width: sourceWidth, height: sourceHeight,
                                                 bytes: m["source-bytes"].flatMap(Int.init)))
        self.init(image: image, cacheType: .shared, sourceETag: m["source-etag"].flatMap(Self.unwrap),
                  sourceLastModified: m["source-last-modified"].flatMap(Self.unwrap), key: key)
        sourceCacheControl = m["source-cache-control"].flatMap(Self.unwrap)
        sourceExpires = m["source-expires"].flatMap(Self.unwrap)
        sourceHeaders = PassedHeader.split(m["source-response-headers"].flatMap(Self.unwrap))
    }

    var sharedObject: S3Client.Object {
        var metadata = [
            "format": image.format.rawValue, "width": "\(image.width)", "height": "\(image.height)",
            "source-format": image.source.format.rawValue, "source-width": "\(image.source.width)", "source-height": "\(image.source.height)",
        ]
        // Percent-encoded: metadata travels as header values, which must
        // stay ASCII, and stores trim their spaces.
        metadata["source-bytes"] = image.source.bytes.map(String.init)
        metadata["source-etag"] = sourceETag.map(Self.wrap)
        metadata["source-last-modified"] = sourceLastModified.map(Self.wrap)
        metadata["source-cache-control"] = sourceCacheControl.map(Self.wrap)
        metadata["source-expires"] = sourceExpires.map(Self.wrap)
        metadata["source-response-headers"] = PassedHeader.joined(sourceHeaders).map(Self.wrap)
        return S3Client.Object(data: image.data, contentType: image.format.mimeType, metadata: metadata)
    }

    fileprivate static func wrap(_ value: String) -> String {
        S3Signer.encode(value, keepSlash: false)
    }

    fileprivate static func unwrap(_ value: String) -> String? {
        value.removingPercentEncoding
    }
}

extension SourceData {
    /// Nil when the object is not an image Darkroom reads.
    init?(sharedObject object: S3Client.Object) {
        guard case .image(let format) = ImageFormat.sniff(object.data) else { return nil }
        self.init(data: object.data, format: format, contentType: object.contentType,
                  etag: object.metadata["source-etag"].flatMap(ImageResponse.unwrap),
                  lastModified: object.metadata["source-last-modified"].flatMap(ImageResponse.unwrap),
                  cacheControl: object.metadata["source-cache-control"].flatMap(ImageResponse.unwrap),
                  expires: object.metadata["source-expires"].flatMap(ImageResponse.unwrap))
        responseHeaders = PassedHeader.split(object.metadata["source-response-headers"].flatMap(ImageResponse.unwrap))
    }

    var sharedObject: S3Client.Object {
        var metadata: [String: String] = [:]
        metadata["source-etag"] = etag.map(ImageResponse.wrap)
        metadata["source-last-modified"] = lastModified.map(ImageResponse.wrap)
        metadata["source-cache-control"] = cacheControl.map(ImageResponse.wrap)
        metadata["source-expires"] = expires.map(ImageResponse.wrap)
        metadata["source-response-headers"] = PassedHeader.joined(responseHeaders).map(ImageResponse.wrap)
        return S3Client.Object(data: data, contentType: format.mimeType, metadata: metadata)
    }
}
