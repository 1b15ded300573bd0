internal import CImageFacts

/// What both pixel engines read alike from a source's bytes, before either
/// decodes it: a JPEG's markers, the EXIF orientation and copyright, and
/// whether a colour profile is sRGB. The thumbnail path and the libvips run
/// each ask here, so that they cannot come to differ.
package enum SourceFacts {
    /// A JPEG's structure from its markers, read before either engine
    /// decodes it.
    package struct JPEGStructure: Sendable, Equatable {
        package var width: Int
        package var height: Int
        package var components: Int
        package var isProgressive: Bool
        /// Start-of-scan markers before the end of the image.
        package var scans: Int
        /// Whether libjpeg reads every scan before the first row (a
        /// progressive file, or a sequential one in several scans).
        package var isMultiScan: Bool
        /// The bytes of libjpeg's whole-image coefficient buffer for a
        /// multi-scan file; 0 otherwise.
        package var coefficientBytes: Int
        /// The orientation in the first EXIF APP1, as libvips takes it.
        package var orientation: Int
    }

    package static func jpegStructure(_ bytes: UnsafeRawBufferPointer) -> JPEGStructure? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var info = dr_jpeg_info()
        guard dr_jpeg_inspect(base, bytes.count, &info) == Int32(DR_OK) else { return nil }
        let orientation = info.exif.map { Int(dr_exif_orientation($0, info.exif_length)) } ?? 1
        return JPEGStructure(width: Int(info.width), height: Int(info.height), components: Int(info.components),
                             isProgressive: info.progressive != 0, scans: info.scans, isMultiScan: dr_jpeg_is_multiscan(&info) != 0,
                             coefficientBytes: dr_jpeg_coefficient_bytes(&info), orientation: orientation)
    }

    /// Whether an ICC profile is sRGB, by the one rule both engines follow
    /// (colorants and tone curves; for profiles of tables, the name).
    package static func isSRGB(profile: UnsafeRawBufferPointer) -> Bool {
        guard let base = profile.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        return dr_icc_is_srgb(base, profile.count) != 0
    }

    /// The EXIF copyright's bytes (the photographer's part) of an EXIF
    /// payload as libvips keeps it ("Exif\0\0" and the TIFF block, or the
    /// block alone), as text; nil when there is none.
    package static func exifCopyright(payload: UnsafeRawBufferPointer) -> String? {
        guard let base = payload.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var tiffLength = 0
        guard let tiff = dr_exif_tiff(base, payload.count, 1, &tiffLength) else { return nil }
        var value: UnsafePointer<UInt8>?
        let length = dr_exif_copyright(tiff, tiffLength, &value)
        guard length > 0, let value else { return nil }
        // Not UTF-8 (EXIF says ASCII; Latin-1 is common): each byte as a
        // Latin-1 character, which libvips writes back as UTF-8.
        let bytes = UnsafeBufferPointer(start: value, count: length)
        return String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
    }

    /// The EXIF orientation of a TIFF-structured EXIF block, as libvips
    /// reads it; 1 when there is none.
    package static func exifOrientation(tiff: UnsafeRawBufferPointer) -> Int {
        guard let base = tiff.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 1 }
        return Int(dr_exif_orientation(base, tiff.count))
    }
}
