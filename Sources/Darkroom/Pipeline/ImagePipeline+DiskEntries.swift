import Foundation

// How pipeline values are kept in the disk cache.

extension SourceData {
    init?(diskEntry entry: DiskCacheEntry) {
        guard case .image(let format) = ImageFormat.sniff(entry.data) else { return nil }
        self.init(data: entry.data, format: format, contentType: entry.contentType, etag: entry.etag, lastModified: entry.lastModified,
                  cacheControl: entry.metadata["cache-control"], expires: entry.metadata["expires"])
        responseHeaders = PassedHeader.split(entry.metadata["response-headers"])
    }

    var diskEntry: DiskCacheEntry {
        var entry = DiskCacheEntry(data: data, contentType: contentType, etag: etag, lastModified: lastModified)
        entry.metadata["cache-control"] = cacheControl
        entry.metadata["expires"] = expires
        entry.metadata["response-headers"] = PassedHeader.joined(responseHeaders)
        return entry
    }
}

extension ImageResponse {
    init?(diskEntry entry: DiskCacheEntry, key: String) {
        let m = entry.metadata
        guard let format = m["format"].flatMap(ImageFormat.init(rawValue:)),
              let width = m["width"].flatMap(Int.init), let height = m["height"].flatMap(Int.init),
              let sourceFormat = m["sourceFormat"].flatMap(ImageFormat.init(rawValue:)),
              let sourceWidth = m["sourceWidth"].flatMap(Int.init), let sourceHeight = m["sourceHeight"].flatMap(Int.init)
        else { return nil }
        let image = ProcessedImage(data: entry.data, format: format, width: width, height: height,
                                   source: .init(format: sourceFormat, width: sourceWidth, height: sourceHeight,
                                                 bytes: m["sourceBytes"].flatMap(Int.init)))
        self.init(image: image, cacheType: .disk, sourceETag: entry.etag, sourceLastModified: entry.lastModified, key: key)
        sourceCacheControl = m["cache-control"]
        sourceExpires = m["expires"]
        sourceHeaders = PassedHeader.split(m["response-headers"])
    }

    var diskEntry: DiskCacheEntry {
        var entry = DiskCacheEntry(data: image.data, contentType: image.format.mimeType, etag: sourceETag, lastModified: sourceLastModified)
        entry.metadata = [
            "format": image.format.rawValue, "width": "\(image.width)", "height": "\(image.height)",
            "sourceFormat": image.source.format.rawValue, "sourceWidth": "\(image.source.width)", "sourceHeight": "\(image.source.height)",
        ]
        entry.metadata["sourceBytes"] = image.source.bytes.map(String.init)
        entry.metadata["cache-control"] = sourceCacheControl
        entry.metadata["expires"] = sourceExpires
        entry.metadata["response-headers"] = PassedHeader.joined(sourceHeaders)
        return entry
    }
}
